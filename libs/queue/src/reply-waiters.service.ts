import { AppConfig, GatewayError, LOGGER, newId, syncDeadlineMs } from '@gateway/common';
import { createRedis, GatewayRedis } from '@gateway/redis';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { Logger } from 'pino';
import { TaskOutcome, TaskQueueName } from './job-contracts';
import { decodeOutcome } from './outcome-codec';
import { TaskQueues } from './task-queues.service';

/** A task's final outcome if it has one: delivered (Redis) or recorded (MongoDB). */
export interface OutcomeLookup {
  findOutcome(taskId: string): Promise<TaskOutcome | null>;
}
export const OUTCOME_LOOKUP = Symbol('OUTCOME_LOOKUP');

/** Held callers answered per turn of the event loop when replies come in a burst. */
const REPLIES_PER_TURN = 16;
/** Waits re-checked per pipelined read of their jobs. */
const RECHECK_BATCH = 500;

/** The reply channel's connection, as far as the waiters use it. */
export type ReplySubscriber = Pick<Redis, 'on' | 'subscribe' | 'disconnect'>;

interface Waiter {
  queue: TaskQueueName;
  since: number;
  timer: NodeJS.Timeout;
  resolve(outcome: TaskOutcome): void;
  reject(error: unknown): void;
}

/**
 * The callers this api instance holds, by task id, until their outcome arrives (docs/architecture.md). One registry
 * fed by one subscription on this instance's reply channel, never a listener per request. Pub/sub can drop messages
 * across a reconnect, so pending waits re-check their task on every reconnect and periodically.
 */
@Injectable()
export class ReplyWaiters implements OnModuleInit, BeforeApplicationShutdown {
  readonly instanceId: string;
  /** Where workers publish this instance's outcomes; every job it dispatches carries it as `replyTo`. */
  readonly channel: string;
  private readonly pending = new Map<string, Waiter>();
  /** Replies taken from the channel whose callers are still to be answered, oldest first. */
  private answering: (() => void)[] = [];
  private subscriber?: ReplySubscriber;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly config: AppConfig,
    redis: GatewayRedis,
    private readonly queues: TaskQueues,
    @Inject(OUTCOME_LOOKUP) private readonly outcomes: OutcomeLookup,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.instanceId = config.INSTANCE_ID ?? newId('inst');
    this.channel = redis.keys.replyChannel(this.instanceId);
  }

  async onModuleInit(): Promise<void> {
    await this.listen(
      createRedis(this.config, { maxRetriesPerRequest: null }, `reply:${this.instanceId}`, this.logger),
    );
  }

  /** Subscribes to the reply channel on `subscriber` and starts the periodic re-check. */
  async listen(subscriber: ReplySubscriber): Promise<void> {
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => this.onReply(message));
    let connectedOnce = false;
    subscriber.on('ready', () => {
      if (connectedOnce) void this.recheck([...this.pending.keys()], 'reconnect');
      connectedOnce = true;
    });
    await subscriber.subscribe(this.channel);
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.WAIT_RECHECK_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  /** Before the HTTP server closes, which waits for the held callers: they get their 504 with the task id first. */
  beforeApplicationShutdown(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const [taskId, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject(timeoutError(taskId, 'the gateway is shutting down'));
    }
    this.pending.clear();
    this.subscriber?.disconnect();
  }

  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Resolves with the task's outcome, or rejects with 504 `Timeout` (carrying the task id) once the queue's
   * synchronous deadline (syncDeadlineMs) elapses; the job keeps running and its result stays retrievable. Registers
   * at once, so call it before the job exists: a very fast reply then cannot arrive unheard.
   */
  wait(queue: TaskQueueName, taskId: string): Promise<TaskOutcome> {
    const deadlineMs = syncDeadlineMs(this.config, queue);
    return new Promise<TaskOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(taskId);
        reject(timeoutError(taskId, `the task did not finish within ${deadlineMs} ms`));
      }, deadlineMs);
      this.pending.set(taskId, { queue, since: Date.now(), timer, resolve, reject });
    });
  }

  /** Ends a wait with `error`, e.g. its job could not be added. */
  fail(taskId: string, error: unknown): void {
    this.take(taskId)?.reject(error);
  }

  /**
   * Stops waiting because the caller left, ending the wait `ClientClosedRequest` so its request finishes: a request
   * left pending would hold its socket, and the server's close, forever. Returns the queue of the task, if waited for.
   */
  drop(taskId: string): TaskQueueName | undefined {
    const waiter = this.take(taskId);
    waiter?.reject(
      new GatewayError('ClientClosedRequest', 'the client disconnected', { details: { task_id: taskId } }),
    );
    return waiter?.queue;
  }

  private onReply(message: string): void {
    let reply: ReturnType<typeof decodeOutcome>;
    try {
      reply = decodeOutcome(message);
    } catch {
      this.logger.warn('unreadable message on the reply channel');
      return;
    }
    const waiter = this.take(reply.taskId);
    if (!waiter) return;
    this.answering.push(() => waiter.resolve(reply.outcome));
    // After the rest of the messages read with this one, so that a burst is seen whole.
    if (this.answering.length === 1) void Promise.resolve().then(() => this.answerSome());
  }

  /**
   * Answers REPLIES_PER_TURN held callers, and the rest in later turns of the event loop. Replies come in bursts (a
   * wave of upstream answers) and each answer is a response to write; answered all in one turn, they would keep
   * /health/live and new requests waiting for the whole burst (bench/README.md, "Held connections").
   */
  private answerSome(): void {
    for (const answer of this.answering.splice(0, REPLIES_PER_TURN)) answer();
    if (this.answering.length > 0) setImmediate(() => this.answerSome());
  }

  private take(taskId: string): Waiter | undefined {
    const waiter = this.pending.get(taskId);
    if (!waiter) return undefined;
    clearTimeout(waiter.timer);
    this.pending.delete(taskId);
    return waiter;
  }

  private async sweep(): Promise<void> {
    if (this.sweeping || this.pending.size === 0) return;
    const cutoff = Date.now() - this.config.WAIT_RECHECK_INTERVAL_MS;
    const stale = [...this.pending].filter(([, waiter]) => waiter.since <= cutoff).map(([taskId]) => taskId);
    await this.recheck(stale, 'periodic');
  }

  /**
   * Resolves waits whose job already finished although no reply reached this instance. Most waits re-checked are
   * simply still running: one pipelined read per batch tells them apart, so thousands of held calls cost the api a
   * few round trips per sweep, and only a finished job's outcome is looked up.
   */
  private async recheck(taskIds: string[], reason: string): Promise<void> {
    if (taskIds.length === 0) return;
    this.sweeping = true;
    try {
      for (let start = 0; start < taskIds.length; start += RECHECK_BATCH) {
        for (const [queue, batch] of this.byQueue(taskIds.slice(start, start + RECHECK_BATCH))) {
          const running = await this.queues.stillRunning(queue, batch).catch(() => new Set(batch));
          for (const taskId of batch) {
            if (running.has(taskId) || !this.pending.has(taskId)) continue;
            const outcome = await this.finishedOutcome(queue, taskId).catch(() => null);
            if (!outcome) continue;
            this.logger.info({ taskId, reason }, 'task outcome recovered by re-check');
            this.take(taskId)?.resolve(outcome);
          }
        }
      }
    } finally {
      this.sweeping = false;
    }
  }

  /** The still pending waits among `taskIds`, by queue. */
  private byQueue(taskIds: string[]): Map<TaskQueueName, string[]> {
    const groups = new Map<TaskQueueName, string[]>();
    for (const taskId of taskIds) {
      const waiter = this.pending.get(taskId);
      if (!waiter) continue;
      const group = groups.get(waiter.queue);
      if (group) group.push(taskId);
      else groups.set(waiter.queue, [taskId]);
    }
    return groups;
  }

  private async finishedOutcome(queue: TaskQueueName, taskId: string): Promise<TaskOutcome | null> {
    const known = await this.outcomes.findOutcome(taskId);
    if (known) return known;
    const job = await this.queues.of(queue).getJob(taskId);
    if (job && !job.finishedOn) return null;
    // A job finishes only after its outcome is stored, so look once more before calling it lost.
    const recorded = await this.outcomes.findOutcome(taskId);
    if (recorded) return recorded;
    // Failed without an outcome (e.g. stalled beyond the allowed count), or gone altogether.
    const message = job?.failedReason ? `the task failed: ${job.failedReason}` : 'the task was lost';
    return { ok: false, providerMs: 0, error: new GatewayError('InternalError', message).toJSON() };
  }
}

function timeoutError(taskId: string, message: string): GatewayError {
  return new GatewayError('Timeout', `${message}; fetch the result with GET /v1/tasks/${taskId}`, {
    details: { task_id: taskId },
  });
}
