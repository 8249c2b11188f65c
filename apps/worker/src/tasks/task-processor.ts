import type { PayloadOf, TaskJobResult, TaskQueueName, TaskUsage } from '@gateway/queue';
import type { Job } from 'bullmq';

/** What a task service produced: the caller's response body (JSON text, serialised once) and what it consumed. */
export interface ExecutedTask {
  body: string;
  usage: TaskUsage;
  provider: string;
  providerMs: number;
  cost: number;
}

/** A processor of one task queue; TaskWorkers runs one BullMQ Worker per processor. */
export interface TaskProcessor<Q extends TaskQueueName = TaskQueueName> {
  readonly queue: Q;
  process(job: Job<PayloadOf<Q>>): Promise<TaskJobResult>;
}

export const TASK_PROCESSORS = Symbol('TASK_PROCESSORS');
