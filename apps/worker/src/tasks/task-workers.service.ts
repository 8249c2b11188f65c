import { AppConfig, LOGGER } from '@gateway/common';
import { bullConnection } from '@gateway/queue';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'bullmq';
import { Logger } from 'pino';
import { TASK_PROCESSORS, TaskProcessor } from './task-processor';

/**
 * One BullMQ Worker per processor, built from the operator's configuration (concurrency, lock duration, stall
 * detection), which @Processor's static decorator options cannot express. Closing waits for active jobs in the
 * first shutdown phase, so a job finishing during shutdown still delivers, records and rolls up its outcome
 * before roll-ups flush (beforeApplicationShutdown) and connections close (onApplicationShutdown).
 */
@Injectable()
export class TaskWorkers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly workers: Worker[] = [];

  constructor(
    private readonly config: AppConfig,
    @Inject(TASK_PROCESSORS) private readonly processors: TaskProcessor[],
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    for (const processor of this.processors) {
      const worker = new Worker(processor.queue, (job) => processor.process(job as never), {
        connection: bullConnection(this.config, 'worker'),
        prefix: this.config.QUEUE_PREFIX,
        concurrency: processor.concurrency ?? this.config.WORKER_CONCURRENCY,
        lockDuration: this.config.JOB_LOCK_MS,
        stalledInterval: this.config.JOB_LOCK_MS,
        maxStalledCount: 2,
        ...(processor.settings ? { settings: processor.settings } : {}),
      });
      worker.on('error', (error) => this.logger.error({ queue: processor.queue, err: error.message }, 'worker error'));
      worker.on('stalled', (jobId) => this.logger.warn({ queue: processor.queue, taskId: jobId }, 'job stalled; it will run again'));
      this.workers.push(worker);
    }
    this.logger.info({ queues: this.processors.map((p) => p.queue), concurrency: this.config.WORKER_CONCURRENCY }, 'workers started');
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }
}
