import type { PayloadOf, QueueName, ResultOf, TaskUsage } from '@gateway/queue';
import type { Job, WorkerOptions } from 'bullmq';

/** What a task service produced: the caller's response body (JSON text, serialised once) and what it consumed. */
export interface ExecutedTask {
  body: string;
  usage: TaskUsage;
  provider: string;
  providerMs: number;
  cost: number;
}

/** A processor of one queue; TaskWorkers runs one BullMQ Worker per processor. */
export interface TaskProcessor<Q extends QueueName = QueueName> {
  readonly queue: Q;
  /** Jobs run at once in this process; WORKER_CONCURRENCY when absent. */
  readonly concurrency?: number;
  /** BullMQ worker settings, e.g. a backoff strategy of its own. */
  readonly settings?: WorkerOptions['settings'];
  process(job: Job<PayloadOf<Q>>): Promise<ResultOf<Q>>;
}

export const TASK_PROCESSORS = Symbol('TASK_PROCESSORS');
