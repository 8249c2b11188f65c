import { CatalogModule } from '@gateway/catalog';
import { AppConfig, ConfigModule, LoggerModule } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { ImagingModule } from '@gateway/imaging';
import { MeteringModule } from '@gateway/metering';
import { MetricsModule, OperationsModule } from '@gateway/metrics';
import { ProvidersModule } from '@gateway/providers';
import { QueueModule, QueueName } from '@gateway/queue';
import { TenancyModule } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { DynamicModule, Module, Type } from '@nestjs/common';
import { Logger } from 'pino';
import { ChatProcessor } from './processors/chat.processor';
import { EmbeddingsProcessor } from './processors/embeddings.processor';
import { ImageEditProcessor } from './processors/image-edit.processor';
import { MaintenanceProcessor } from './processors/maintenance.processor';
import { MaintenancePass } from './tasks/maintenance-pass.service';
import { WebhooksProcessor } from './processors/webhooks.processor';
import { ChatTaskService } from './tasks/chat-task.service';
import { EmbeddingsTaskService } from './tasks/embeddings-task.service';
import { ImageEditTaskService } from './tasks/image-edit-task.service';
import { ImageInputs } from './tasks/image-inputs.service';
import { TASK_PROCESSORS, TaskProcessor } from './tasks/task-processor';
import { TaskRunner } from './tasks/task-runner.service';
import { TaskWorkers } from './tasks/task-workers.service';

/** The processor of each queue this codebase can serve. */
const PROCESSORS: Partial<Record<QueueName, Type<TaskProcessor>>> = {
  [QueueName.Embeddings]: EmbeddingsProcessor,
  [QueueName.Chat]: ChatProcessor,
  [QueueName.ImageEdit]: ImageEditProcessor,
  [QueueName.Webhooks]: WebhooksProcessor,
  [QueueName.Maintenance]: MaintenanceProcessor,
};

/** Queues this worker serves; a configured queue without a processor stops start-up (docs/style.md). */
export function selectProcessors(config: AppConfig): Type<TaskProcessor>[] {
  const wanted = config.workerQueues;
  if (wanted === 'all') return Object.values(PROCESSORS) as Type<TaskProcessor>[];
  return wanted.map((queue) => {
    const processor = PROCESSORS[queue as QueueName];
    if (!processor) {
      const known = Object.keys(PROCESSORS).join(', ');
      throw new Error(`WORKER_QUEUES names "${queue}", which has no processor in this build (available: ${known})`);
    }
    return processor;
  });
}

@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    const processors = selectProcessors(config);
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        MetricsModule,
        DbModule,
        CatalogModule,
        QueueModule.forRoot('worker'),
        ProvidersModule,
        TenancyModule,
        MeteringModule,
        OperationsModule,
        ImagingModule,
      ],
      providers: [
        TaskRunner,
        EmbeddingsTaskService,
        ChatTaskService,
        ImageEditTaskService,
        ImageInputs,
        MaintenancePass,
        WebhookJobs,
        ...processors,
        { provide: TASK_PROCESSORS, useFactory: (...instances: TaskProcessor[]) => instances, inject: processors },
        TaskWorkers,
      ],
    };
  }
}
