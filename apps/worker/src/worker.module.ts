import { CatalogModule } from '@gateway/catalog';
import { AppConfig, ConfigModule, LoggerModule, Tracing, TracingModule } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { ImagingModule } from '@gateway/imaging';
import { LedgerModule, RecordWriter, UsageFolding } from '@gateway/ledger';
import { MetricsModule, OperationsModule } from '@gateway/metrics';
import { ProvidersModule } from '@gateway/providers';
import { QueueModule, QueueName, TaskQueueName } from '@gateway/queue';
import { TenancyModule } from '@gateway/tenancy';
import { WebhookJobs } from '@gateway/webhooks';
import { DynamicModule, Module, Type } from '@nestjs/common';
import { Logger } from 'pino';
import { MaintenanceProcessor } from './processors/maintenance.processor';
import { QUEUE_PROCESSORS, QueueProcessor } from './processors/queue-processor';
import { WebhooksProcessor } from './processors/webhooks.processor';
import { ImageInputs } from './tasks/image-inputs.service';
import { JobPickup, SERVED_TASK_QUEUES } from './tasks/job-pickup.service';
import { MaintenancePass } from './tasks/maintenance-pass.service';
import { ResponsesRunner } from './tasks/responses/responses-runner.service';
import { TaskBodyKeeper } from './tasks/bodies/task-body-keeper.service';
import { TaskRunner } from './tasks/task-runner.service';
import { isTaskQueue, TASK_SERVICES } from './tasks/task-services';

/** The worker's own queues and their processors; each task queue is run by its task service (TASK_SERVICES). */
const PROCESSORS: Partial<Record<QueueName, Type<QueueProcessor>>> = {
  [QueueName.Webhooks]: WebhooksProcessor,
  [QueueName.Maintenance]: MaintenanceProcessor,
};

/** Queues this worker serves; a configured queue this build cannot run stops start-up (docs/style.md). */
export function selectQueues(config: AppConfig): { taskQueues: TaskQueueName[]; processors: Type<QueueProcessor>[] } {
  const known = [...Object.keys(TASK_SERVICES), ...Object.keys(PROCESSORS)];
  const wanted = config.workerQueues === 'all' ? known : config.workerQueues;
  const unknown = wanted.find((queue) => !known.includes(queue));
  if (unknown !== undefined) {
    throw new Error(
      `WORKER_QUEUES names "${unknown}", which has no processor in this build (available: ${known.join(', ')})`,
    );
  }
  return {
    taskQueues: wanted.filter(isTaskQueue),
    processors: wanted.flatMap((queue) => PROCESSORS[queue as QueueName] ?? []),
  };
}

@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    const { taskQueues, processors } = selectQueues(config);
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        TracingModule.forRoot(Tracing.fromSettings(config, 'worker')),
        MetricsModule,
        DbModule,
        CatalogModule,
        QueueModule.forRoot('worker'),
        LedgerModule,
        ProvidersModule,
        TenancyModule,
        OperationsModule,
        ImagingModule,
      ],
      providers: [
        TaskRunner,
        RecordWriter,
        TaskBodyKeeper,
        UsageFolding,
        ...Object.values(TASK_SERVICES).map((entry) => entry.service),
        ImageInputs,
        ResponsesRunner,
        MaintenancePass,
        WebhookJobs,
        ...processors,
        { provide: QUEUE_PROCESSORS, useFactory: (...instances: QueueProcessor[]) => instances, inject: processors },
        { provide: SERVED_TASK_QUEUES, useValue: taskQueues },
        JobPickup,
      ],
    };
  }
}
