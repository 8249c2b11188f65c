import { CatalogModule } from '@gateway/catalog';
import { AppConfig, ConfigModule, LoggerModule, Tracing, TracingModule } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { ImagingModule } from '@gateway/imaging';
import { LedgerModule } from '@gateway/ledger';
import { MetricsModule, MetricsService, OperationsModule } from '@gateway/metrics';
import { JobDispatcher, OUTCOME_LOOKUP, QueueModule, ReplyWaiters, TaskQueues } from '@gateway/queue';
import { TenancyModule } from '@gateway/tenancy';
import { DynamicModule, Module, OnModuleInit } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Logger } from 'pino';
import { ConsoleModule } from './console/console.module';
import { ErrorEnvelopeFilter } from './http/error.filter';
import { OpenApiModule } from './openapi/openapi.module';
import { ChatController } from './v1/chat/chat.controller';
import { ChatRequestService } from './v1/chat/chat-request.service';
import { EmbeddingsController } from './v1/embeddings/embeddings.controller';
import { EmbeddingsRequestService } from './v1/embeddings/embeddings-request.service';
import { FilesController } from './v1/files/files.controller';
import { ImageEditController } from './v1/images/image-edit.controller';
import { ImageEditRequestService } from './v1/images/image-edit-request.service';
import { ModelsController } from './v1/models/models.controller';
import { ResponsesController } from './v1/responses/responses.controller';
import { ResponsesRequestService } from './v1/responses/responses-request.service';
import { StoredResponses } from './v1/responses/stored-responses.service';
import { IdempotentRequests } from './v1/idempotent-requests.service';
import { StreamRelay } from './v1/stream-relay.service';
import { TaskSubmitter } from './v1/task-submitter.service';
import { FinalOutcomes } from './v1/tasks/final-outcomes.service';
import { TaskReader } from './v1/tasks/task-reader.service';
import { TasksController } from './v1/tasks/tasks.controller';

@Module({})
export class ApiModule implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly waiters: ReplyWaiters,
  ) {}

  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        TracingModule.forRoot(Tracing.fromSettings(config, 'api')),
        MetricsModule,
        DbModule,
        CatalogModule,
        QueueModule.forRoot('producer'),
        LedgerModule,
        TenancyModule,
        ConsoleModule,
        OperationsModule,
        ImagingModule,
        OpenApiModule,
      ],
      controllers: [
        EmbeddingsController,
        ChatController,
        ResponsesController,
        ImageEditController,
        FilesController,
        ModelsController,
        TasksController,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: OUTCOME_LOOKUP, useExisting: FinalOutcomes },
        // A request's round trip, in order: submit, dispatch, wait for the reply (or relay the stream).
        TaskSubmitter,
        IdempotentRequests,
        TaskQueues,
        JobDispatcher,
        ReplyWaiters,
        StreamRelay,
        FinalOutcomes,
        TaskReader,
        EmbeddingsRequestService,
        ChatRequestService,
        ResponsesRequestService,
        StoredResponses,
        ImageEditRequestService,
      ],
    };
  }

  onModuleInit(): void {
    this.metrics.setService('api');
    this.metrics.onScrape(() => this.metrics.syncWaiters.set(this.waiters.waiting));
  }
}
