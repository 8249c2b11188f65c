import { AppConfig, LOGGER } from '@gateway/common';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Job, JobsOptions } from 'bullmq';
import { Logger } from 'pino';
import { PayloadOf, QueueName, TaskOutcome, TaskQueueName } from './job-contracts';
import { ReplyWaiters } from './reply-waiters.service';
import { TaskQueues } from './task-queues.service';

/**
 * How long finished jobs stay in Redis. Outcomes live in the outcome key and the task record, so a finished job is
 * only kept for a look at the queue. Embeddings and chat jobs are small and trimmed by age and count: measured,
 * BullMQ's per-job removal on completion cost ~25% throughput, while trimming the oldest beyond 1,000 costs nothing
 * measurable. An image-edit job carries up to three inline images (IMAGE_INLINE_INPUT_BYTES each), so it is removed
 * on completion and at most 100 failed ones are kept: 1,000 of them could hold a gigabyte. Failed jobs stay a day
 * for the operators' queue pages.
 */
const KEEP_SMALL_JOBS: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { age: 3600, count: 1_000 },
  removeOnFail: { age: 24 * 3600, count: 1_000 },
};
const RETENTION: Record<TaskQueueName, Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'>> = {
  [QueueName.Embeddings]: KEEP_SMALL_JOBS,
  [QueueName.Chat]: KEEP_SMALL_JOBS,
  [QueueName.ImageEdit]: { removeOnComplete: true, removeOnFail: { age: 24 * 3600, count: 100 } },
};

/**
 * Adds task jobs (job id = task id) to their queue, for a caller held until the reply (ReplyWaiters) or for
 * nobody (async). Also takes back a job no worker has picked up yet, and reads a job's state.
 */
@Injectable()
export class JobDispatcher implements OnModuleInit {
  constructor(
    private readonly config: AppConfig,
    private readonly queues: TaskQueues,
    private readonly waiters: ReplyWaiters,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    await Promise.all(this.queues.all().map((queue) => queue.waitUntilReady()));
  }

  /**
   * Adds the job with this instance's reply channel and resolves with the task's outcome, or rejects with 504
   * `Timeout` (ReplyWaiters.wait). `onEnqueued` runs once the job exists.
   */
  dispatchAndWait<Q extends TaskQueueName>(
    queue: Q,
    payload: PayloadOf<Q>,
    onEnqueued?: () => unknown,
  ): Promise<TaskOutcome> {
    const taskId = payload.taskId;
    const outcome = this.waiters.wait(queue, taskId);
    void this.queues
      .of(queue)
      .add(queue, { ...payload, replyTo: this.waiters.channel }, this.jobOptions(queue, taskId))
      .then(
        () =>
          Promise.resolve(onEnqueued?.()).catch((error: Error) =>
            this.logger.warn({ taskId, err: error.message }, 'after-enqueue step failed'),
          ),
        (error) => this.waiters.fail(taskId, error),
      );
    return outcome;
  }

  /** Adds an asynchronous task: nobody waits; the outcome is read with GET /v1/tasks or sent by webhook. */
  async dispatch<Q extends TaskQueueName>(queue: Q, payload: PayloadOf<Q>): Promise<void> {
    await this.queues.of(queue).add(queue, payload, this.jobOptions(queue, payload.taskId));
  }

  /**
   * The caller went away. A job no worker has picked up yet is removed (nothing runs, nothing is billed);
   * one already running completes and stays retrievable. Returns whether the job was removed.
   */
  async abandon(taskId: string): Promise<boolean> {
    const queue = this.waiters.drop(taskId);
    if (!queue) return false;
    // Queue.remove answers 0 when the job is locked, i.e. a worker already holds it.
    return (await this.queues.of(queue).remove(taskId)) === 1;
  }

  /** In-flight state of a task from its job, for tasks whose record is not written yet. */
  async jobState(
    taskId: string,
  ): Promise<{ queue: TaskQueueName; state: string; data: PayloadOf<TaskQueueName> } | null> {
    for (const queue of this.queues.all()) {
      const job = await Job.fromId<PayloadOf<TaskQueueName>>(queue, taskId);
      if (job) return { queue: queue.name as TaskQueueName, state: await job.getState(), data: job.data };
    }
    return null;
  }

  private jobOptions(queue: TaskQueueName, taskId: string): JobsOptions {
    return {
      jobId: taskId,
      attempts: this.config.JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
      ...RETENTION[queue],
    };
  }
}
