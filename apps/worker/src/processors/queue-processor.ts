import type { PayloadOf, QueueName, ResultOf } from '@gateway/queue';
import type { Job, WorkerOptions } from 'bullmq';

/**
 * The processor of one of the worker's own queues (webhooks, maintenance); JobPickup runs one BullMQ Worker per
 * processor. Task queues have none: TaskRunner runs their jobs with the task service TASK_SERVICES names.
 */
export interface QueueProcessor<Q extends QueueName = QueueName> {
  readonly queue: Q;
  /** Jobs run at once in this process; WORKER_CONCURRENCY when absent. */
  readonly concurrency?: number;
  /** BullMQ worker settings, e.g. a backoff strategy of its own. */
  readonly settings?: WorkerOptions['settings'];
  process(job: Job<PayloadOf<Q>>): Promise<ResultOf<Q>>;
}

export const QUEUE_PROCESSORS = Symbol('QUEUE_PROCESSORS');
