import { ERROR_CODES, GatewayError } from '@gateway/common';
import { getQueueToken } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Job, Queue } from 'bullmq';
import { QueueName } from './job-contracts';

export interface QueueState {
  name: QueueName;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** Worker processes connected to this queue now. */
  workers: number;
}

export interface FailedJob {
  id: string;
  queue: QueueName;
  task_id: string | null;
  app_id: string | null;
  reason: string;
  /** The HTTP status of the error code the job failed with (`<code>: <message>`), when it names one. */
  status: number | null;
  /** False for a client error (4xx but 408 and 429): the same request would be refused again. */
  retryable: boolean;
  attempts: number;
  failed_at: string | null;
}

/** What operators see of the queues, read from BullMQ itself, and the one thing they may do: retry a failed job. */
@Injectable()
export class QueueOverview {
  constructor(private readonly moduleRef: ModuleRef) {}

  states(): Promise<QueueState[]> {
    return Promise.all(
      Object.values(QueueName).map(async (name) => {
        const queue = this.queue(name);
        const [counts, workers] = await Promise.all([
          queue.getJobCounts('waiting', 'active', 'delayed', 'failed'),
          queue.getWorkers(),
        ]);
        return {
          name,
          waiting: counts.waiting ?? 0,
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          workers: workers.length,
        };
      }),
    );
  }

  /** The most recently failed jobs of a queue, newest first. */
  async failed(name: string, limit: number): Promise<FailedJob[]> {
    const queue = this.queue(queueName(name));
    const jobs = await queue.getFailed(0, limit - 1);
    return jobs.filter(Boolean).map((job) => presentFailed(queueName(name), job));
  }

  /** Runs a failed job again; a job that is not (or no longer) failed is refused. */
  async retry(name: string, jobId: string): Promise<void> {
    const queue = this.queue(queueName(name));
    const job = await queue.getJob(jobId);
    if (!job || !(await job.isFailed()))
      throw new GatewayError('NotFound', `no failed job ${jobId} in queue ${name}`, { param: 'job_id' });
    await job.retry('failed');
  }

  private queue(name: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }
}

function queueName(name: string): QueueName {
  if (!(Object.values(QueueName) as string[]).includes(name)) {
    throw new GatewayError(
      'NotFound',
      `no queue ${name.slice(0, 40)}; the queues are ${Object.values(QueueName).join(', ')}`,
      { param: 'queue' },
    );
  }
  return name as QueueName;
}

function presentFailed(queue: QueueName, job: Job): FailedJob {
  const data = (job.data ?? {}) as { taskId?: string; appId?: string };
  const code = /^([A-Za-z]+):/.exec(job.failedReason ?? '')?.[1];
  const status = code && Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as keyof typeof ERROR_CODES].status : null;
  return {
    id: String(job.id),
    queue,
    task_id: data.taskId ?? null,
    app_id: data.appId ?? null,
    reason: (job.failedReason ?? '').slice(0, 500),
    status,
    retryable: status === null || status >= 500 || status === 408 || status === 429,
    attempts: job.attemptsMade,
    failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
  };
}
