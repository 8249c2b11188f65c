import { CatalogModule } from '@gateway/catalog';
import { AppConfig, ConfigModule, LoggerModule } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { ImagingModule } from '@gateway/imaging';
import { MetricsModule, MetricsService, OperationsModule } from '@gateway/metrics';
import { QueueModule, TASK_OUTCOME_SOURCE, TaskGateway } from '@gateway/queue';
import { ConsoleModule, TenancyModule } from '@gateway/tenancy';
import { DynamicModule, Module, OnModuleInit } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Logger } from 'pino';
import { ConsoleApplicationsController } from './console/applications/console-applications.controller';
import { ConsoleAuthController } from './console/auth/console-auth.controller';
import { ConsoleModelsController } from './console/models/console-models.controller';
import { ConsoleOperatorsController } from './console/operators/console-operators.controller';
import { ConsoleSessionGuard } from './console/auth/console-session.guard';
import { ConsoleUsageController } from './console/usage/console-usage.controller';
import { ErrorEnvelopeFilter } from './http/error.filter';
import { ChatController } from './v1/chat/chat.controller';
import { ChatRequestService } from './v1/chat/chat-request.service';
import { EmbeddingsController } from './v1/embeddings/embeddings.controller';
import { EmbeddingsRequestService } from './v1/embeddings/embeddings-request.service';
import { FilesController } from './v1/files/files.controller';
import { ImageEditController } from './v1/images/image-edit.controller';
import { ImageEditRequestService } from './v1/images/image-edit-request.service';
import { ModelsController } from './v1/models/models.controller';
import { IdempotentRequests } from './v1/idempotent-requests.service';
import { TaskStreamResponder } from './v1/task-stream-responder';
import { TaskSubmissionService } from './v1/task-submission.service';
import { RecordedOutcomes } from './v1/tasks/recorded-outcomes.service';
import { TasksController } from './v1/tasks/tasks.controller';
import { TaskViewService } from './v1/tasks/task-view.service';

@Module({})
export class ApiModule implements OnModuleInit {
  constructor(private readonly metrics: MetricsService, private readonly gateway: TaskGateway) {}

  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        MetricsModule,
        DbModule,
        CatalogModule,
        QueueModule.forRoot('producer'),
        TenancyModule,
        ConsoleModule,
        OperationsModule,
        ImagingModule,
      ],
      controllers: [
        EmbeddingsController, ChatController, ImageEditController, FilesController, ModelsController, TasksController,
        ConsoleAuthController, ConsoleApplicationsController, ConsoleUsageController, ConsoleOperatorsController, ConsoleModelsController,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: TASK_OUTCOME_SOURCE, useExisting: RecordedOutcomes },
        TaskGateway,
        ConsoleSessionGuard,
        TaskSubmissionService,
        IdempotentRequests,
        TaskStreamResponder,
        RecordedOutcomes,
        TaskViewService,
        EmbeddingsRequestService,
        ChatRequestService,
        ImageEditRequestService,
      ],
    };
  }

  onModuleInit(): void {
    this.metrics.setService('api');
    this.metrics.onScrape(() => this.metrics.syncWaiters.set(this.gateway.waiting));
  }
}
