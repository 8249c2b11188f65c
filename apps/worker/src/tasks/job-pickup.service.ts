import { AppConfig, LOGGER } from '@gateway/common';
import { PayloadOf, QueueName, ResultOf, TaskQueueName } from '@gateway/queue';
import { bullConnection, closeBullConnection } from '@gateway/redis';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Job, Worker, WorkerOptions } from 'bullmq';
import { Logger } from 'pino';
import { QUEUE_PROCESSORS, QueueProcessor } from '../processors/queue-processor';
import { PromptWorker } from './prompt-worker';
import { TaskRunner } from './task-runner.service';
import { TASK_SERVICES } from './task-services';

/** The task queues this worker serves (WORKER_QUEUES). */
export const SERVED_TASK_QUEUES = Symbol('SERVED_TASK_QUEUES');

/**
 * Where a worker picks jobs up: one BullMQ Worker per served queue, built from the operator's configuration
 * (concurrency, lock duration, stall detection), which @Processor's static decorator options cannot express. A
 * task queue's jobs go to TaskRunner with the task service TASK_SERVICES names; the worker's own queues go to
 * their processor. Closing waits for active jobs in the first shutdown phase, so a job finishing during shutdown
 * still delivers, records and rolls up its outcome before roll-ups flush (beforeApplicationShutdown) and
 * connections close (onApplicationShutdown).
 */
@Injectable()
export class JobPickup implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly workers: Worker[] = [];
  /** Each worker's connection from bullConnection, closed after its worker (a Cluster's is not BullMQ's to close). */
  private readonly connections: ReturnType<typeof bullConnection>[] = [];

  constructor(
    private readonly config: AppConfig,
    private readonly runner: TaskRunner,
    private readonly modules: ModuleRef,
    @Inject(SERVED_TASK_QUEUES) private readonly taskQueues: TaskQueueName[],
    @Inject(QUEUE_PROCESSORS) private readonly processors: QueueProcessor[],
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const processors = [...this.taskQueues.map((queue) => this.taskProcessor(queue)), ...this.processors];
    for (const processor of processors) this.workers.push(this.startWorker(processor));
    this.logger.info(
      { queues: processors.map((p) => p.queue), concurrency: this.config.WORKER_CONCURRENCY },
      'workers started',
    );
  }

  /** The BullMQ workers fetching for this process, one per served queue (which kind: WORKER_FETCH). */
  running(): readonly Worker[] {
    return this.workers;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    await Promise.all(this.connections.map((connection) => closeBullConnection(connection)));
  }

  private taskProcessor<Q extends TaskQueueName>(queue: Q): QueueProcessor<Q> {
    const entry = TASK_SERVICES[queue];
    const service = this.modules.get(entry.service);
    return {
      queue,
      concurrency: entry.concurrency?.(this.config),
      process: (job) => this.runner.runTask(queue, job, service),
    };
  }

  private startWorker<Q extends QueueName>(processor: QueueProcessor<Q>): Worker {
    const connection = bullConnection(this.config, 'worker');
    this.connections.push(connection);
    const options: WorkerOptions = {
      autorun: false,
      connection,
      prefix: this.config.redisKeyPrefix,
      concurrency: processor.concurrency ?? this.config.WORKER_CONCURRENCY,
      lockDuration: this.config.JOB_LOCK_MS,
      stalledInterval: this.config.JOB_LOCK_MS,
      maxStalledCount: 2,
      ...(processor.settings ? { settings: processor.settings } : {}),
    };
    const handle = (job: Job<PayloadOf<Q>>) => processor.process(job);
    // WORKER_FETCH=bullmq: BullMQ's own Worker, should an upgrade break what PromptWorker relies on.
    const worker =
      this.config.WORKER_FETCH === 'bullmq'
        ? new Worker<PayloadOf<Q>, ResultOf<Q>>(processor.queue, handle, options)
        : new PromptWorker<PayloadOf<Q>, ResultOf<Q>>(processor.queue, handle, options);
    worker.on('error', (error) => this.logger.error({ queue: processor.queue, err: error.message }, 'worker error'));
    worker.on('stalled', (jobId) =>
      this.logger.warn({ queue: processor.queue, taskId: jobId }, 'job stalled; it will run again'),
    );
    worker.run().catch((error: Error) => worker.emit('error', error));
    return worker;
  }
}
