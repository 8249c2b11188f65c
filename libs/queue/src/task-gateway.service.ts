import { AppConfig, GatewayError, LOGGER, newId } from '@gateway/common';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Job, JobsOptions, Queue } from 'bullmq';
import Redis from 'ioredis';
import { Logger } from 'pino';
import { PayloadOf, QueueName, TaskOutcome, TaskQueueName } from './job-contracts';
import { decodeOutcome } from './outcome-codec';
import { createRedis, replyChannel } from './redis-connections';

interface PendingWait {
  queue: TaskQueueName;
  since: number;
  timer: NodeJS.Timeout;
  resolve(outcome: TaskOutcome): void;
  reject(error: unknown): void;
}

/** The final outcome of a task if it has one: delivered (Redis) or recorded (MongoDB). */
export interface TaskOutcomeSource {
  findOutcome(taskId: string): Promise<TaskOutcome | null>;
}
export const TASK_OUTCOME_SOURCE = Symbol('TASK_OUTCOME_SOURCE');

/**
 * Enqueues task jobs (job id = task id) and holds callers until the outcome arrives (docs/architecture.md).
 * One waiter registry per api instance, fed by one Redis subscription on this instance's reply channel; pub/sub
 * can drop messages across a reconnect, so pending waits re-check the job state on reconnect and periodically.
 */
@Injectable()
export class TaskGateway implements OnModuleInit, OnApplicationShutdown {
  readonly instanceId: string;
  readonly channel: string;
  private readonly pending = new Map<string, PendingWait>();
  private readonly queues: Record<TaskQueueName, Queue>;
  private subscriber?: Redis;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly config: AppConfig,
    @InjectQueue(QueueName.Embeddings) embeddings: Queue,
    @InjectQueue(QueueName.Chat) chat: Queue,
    @InjectQueue(QueueName.ImageEdit) imageEdit: Queue,
    @Inject(TASK_OUTCOME_SOURCE) private readonly outcomes: TaskOutcomeSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.instanceId = config.INSTANCE_ID ?? newId('inst');
    this.channel = replyChannel(config, this.instanceId);
    this.queues = { [QueueName.Embeddings]: embeddings, [QueueName.Chat]: chat, [QueueName.ImageEdit]: imageEdit };
  }

  async onModuleInit(): Promise<void> {
    const subscriber = createRedis(this.config, { maxRetriesPerRequest: null }, `reply:${this.instanceId}`);
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => this.onReply(message));
    subscriber.on('error', (error) => this.logger.warn({ err: error.message }, 'reply channel connection error'));
    let connectedOnce = false;
    subscriber.on('ready', () => {
      if (connectedOnce) void this.recheck([...this.pending.keys()], 'reconnect');
      connectedOnce = true;
    });
    await subscriber.subscribe(this.channel);
    await Promise.all(Object.values(this.queues).map((queue) => queue.waitUntilReady()));
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.WAIT_RECHECK_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const [taskId, wait] of this.pending) {
      clearTimeout(wait.timer);
      wait.reject(this.timeoutError(taskId, 'the gateway is shutting down'));
    }
    this.pending.clear();
    this.subscriber?.disconnect();
  }

  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Enqueues and resolves with the task's outcome, or rejects with 504 `Timeout` (carrying the task id) once
   * SYNC_TIMEOUT_MS elapses; the job keeps running and its result stays retrievable.
   */
  submitAndWait<Q extends TaskQueueName>(queue: Q, payload: PayloadOf<Q>, onEnqueued?: () => unknown): Promise<TaskOutcome> {
    const taskId = payload.taskId;
    return new Promise<TaskOutcome>((resolve, reject) => {
      // Registered before the job exists so that a very fast reply cannot arrive unheard.
      const timer = setTimeout(() => {
        this.pending.delete(taskId);
        reject(this.timeoutError(taskId, `the task did not finish within ${this.config.SYNC_TIMEOUT_MS} ms`));
      }, this.config.SYNC_TIMEOUT_MS);
      this.pending.set(taskId, { queue, since: Date.now(), timer, resolve, reject });
      this.queues[queue]
        .add(queue, { ...payload, replyTo: this.channel }, this.jobOptions(taskId))
        .then(
          () => Promise.resolve(onEnqueued?.()).catch((error) => this.logger.warn({ taskId, err: (error as Error).message }, 'after-enqueue step failed')),
          (error) => {
            this.settle(taskId);
            reject(error);
          },
        );
    });
  }

  /** Enqueues an asynchronous task: nobody waits; the outcome is read with GET /v1/tasks or sent by webhook. */
  async submit<Q extends TaskQueueName>(queue: Q, payload: PayloadOf<Q>): Promise<void> {
    await this.queues[queue].add(queue, payload, this.jobOptions(payload.taskId));
  }

  /**
   * The caller went away. A job no worker has picked up yet is removed (nothing runs, nothing is billed);
   * one already running completes and stays retrievable. Returns whether the job was removed.
   */
  async abandon(taskId: string): Promise<boolean> {
    const wait = this.settle(taskId);
    if (!wait) return false;
    // Queue.remove answers 0 when the job is locked, i.e. a worker already holds it.
    return (await this.queues[wait.queue].remove(taskId)) === 1;
  }

  /** In-flight state of a task from its job, for tasks whose record is not written yet. */
  async jobState(taskId: string): Promise<{ queue: TaskQueueName; state: string; data: PayloadOf<TaskQueueName> } | null> {
    for (const queue of Object.values(this.queues)) {
      const job = await Job.fromId<PayloadOf<TaskQueueName>>(queue, taskId);
      if (job) return { queue: queue.name as TaskQueueName, state: await job.getState(), data: job.data };
    }
    return null;
  }

  private jobOptions(taskId: string): JobsOptions {
    return {
      jobId: taskId,
      attempts: this.config.JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
      // Outcomes live in the outcome key and the task record, so completed jobs are only trimmed, by age and
      // count: measured, BullMQ's per-job removal on completion cost ~25% throughput. Failed jobs stay a day.
      removeOnComplete: { age: 3600, count: 20_000 },
      removeOnFail: { age: 24 * 3600 },
    };
  }

  private onReply(message: string): void {
    let reply: ReturnType<typeof decodeOutcome>;
    try {
      reply = decodeOutcome(message);
    } catch {
      this.logger.warn('unreadable message on the reply channel');
      return;
    }
    this.settle(reply.taskId)?.resolve(reply.outcome);
  }

  private settle(taskId: string): PendingWait | undefined {
    const wait = this.pending.get(taskId);
    if (!wait) return undefined;
    clearTimeout(wait.timer);
    this.pending.delete(taskId);
    return wait;
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || this.pending.size === 0) return;
    const cutoff = Date.now() - this.config.WAIT_RECHECK_INTERVAL_MS;
    const stale = [...this.pending].filter(([, wait]) => wait.since <= cutoff).map(([taskId]) => taskId);
    await this.recheck(stale, 'periodic');
  }

  /** Resolves waits whose job already finished although no reply reached this instance. */
  private async recheck(taskIds: string[], reason: string): Promise<void> {
    if (taskIds.length === 0) return;
    this.sweeping = true;
    try {
      for (const taskId of taskIds) {
        const wait = this.pending.get(taskId);
        if (!wait) continue;
        const outcome = await this.finishedOutcome(wait.queue, taskId).catch(() => null);
        if (outcome) {
          this.logger.info({ taskId, reason }, 'task outcome recovered by re-check');
          this.settle(taskId)?.resolve(outcome);
        }
      }
    } finally {
      this.sweeping = false;
    }
  }

  private async finishedOutcome(queue: TaskQueueName, taskId: string): Promise<TaskOutcome | null> {
    const known = await this.outcomes.findOutcome(taskId);
    if (known) return known;
    const job = await Job.fromId(this.queues[queue], taskId);
    if (job && !job.finishedOn) return null;
    // A job finishes only after its outcome is stored, so look once more before calling it lost.
    const recorded = await this.outcomes.findOutcome(taskId);
    if (recorded) return recorded;
    // Failed without an outcome (e.g. stalled beyond the allowed count), or gone altogether.
    const message = job?.failedReason ? `the task failed: ${job.failedReason}` : 'the task was lost';
    return { ok: false, providerMs: 0, error: new GatewayError('InternalError', message).toJSON() };
  }

  private timeoutError(taskId: string, message: string): GatewayError {
    return new GatewayError('Timeout', `${message}; fetch the result with GET /v1/tasks/${taskId}`, {
      details: { task_id: taskId },
    });
  }
}
