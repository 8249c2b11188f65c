import { EventEmitter } from 'node:events';
import { AppConfig } from '@gateway/common';
import { GatewayRedis, RedisKeys } from '@gateway/redis';
import pino from 'pino';
import { QueueName, TaskOutcome } from './job-contracts';
import { encodeOutcome } from './outcome-codec';
import { OutcomeLookup, ReplySubscriber, ReplyWaiters } from './reply-waiters.service';
import { TaskQueues } from './task-queues.service';

const SYNC_TIMEOUT_MS = 10_000;
const WAIT_RECHECK_INTERVAL_MS = 500;
const config = { SYNC_TIMEOUT_MS, WAIT_RECHECK_INTERVAL_MS, redisKeyPrefix: 'gw', INSTANCE_ID: 'inst_1' } as AppConfig;

const succeeded: TaskOutcome = { ok: true, body: '{"data":[]}', provider: 'primary', providerMs: 4 };

/** The reply channel's connection: `publish` is a message arriving, `reconnect` what ioredis emits after a drop. */
class FakeSubscriber extends EventEmitter {
  readonly channels: string[] = [];

  subscribe(channel: string): Promise<number> {
    this.channels.push(channel);
    this.emit('ready');
    return Promise.resolve(1);
  }

  disconnect(): void {}

  publish(text: string): void {
    this.emit('message', this.channels[0], text);
  }

  reconnect(): void {
    this.emit('ready');
  }
}

/** What the Redis outcome key or the task record would hold, by task id. */
class FakeOutcomes implements OutcomeLookup {
  readonly known = new Map<string, TaskOutcome>();

  findOutcome(taskId: string): Promise<TaskOutcome | null> {
    return Promise.resolve(this.known.get(taskId) ?? null);
  }
}

/** BullMQ jobs by id, with the two fields the re-check reads; a job that delivered its outcome is not running. */
class FakeQueues {
  readonly jobs = new Map<string, { finishedOn?: number; failedReason?: string }>();

  constructor(private readonly outcomes: FakeOutcomes) {}

  of() {
    return { getJob: (taskId: string) => Promise.resolve(this.jobs.get(taskId)) };
  }

  stillRunning(_queue: string, taskIds: string[]): Promise<Set<string>> {
    const running = (taskId: string) =>
      this.jobs.has(taskId) && !this.jobs.get(taskId)?.finishedOn && !this.outcomes.known.has(taskId);
    return Promise.resolve(new Set(taskIds.filter(running)));
  }
}

describe('ReplyWaiters', () => {
  let subscriber: FakeSubscriber;
  let outcomes: FakeOutcomes;
  let queues: FakeQueues;
  let waiters: ReplyWaiters;

  beforeEach(async () => {
    jest.useFakeTimers();
    subscriber = new FakeSubscriber();
    outcomes = new FakeOutcomes();
    queues = new FakeQueues(outcomes);
    const redis = { keys: new RedisKeys(config.redisKeyPrefix) } as GatewayRedis;
    waiters = new ReplyWaiters(config, redis, queues as unknown as TaskQueues, outcomes, pino({ level: 'silent' }));
    await waiters.listen(subscriber as unknown as ReplySubscriber);
  });

  afterEach(() => {
    waiters.beforeApplicationShutdown();
    jest.useRealTimers();
  });

  /** A waiter whose promise is observed at once, so a rejection is never reported as unhandled. */
  const waitFor = (taskId: string) => {
    const settled = waiters.wait(QueueName.Embeddings, taskId).then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    );
    queues.jobs.set(taskId, {});
    return settled;
  };

  it('listens on this instance’s reply channel', () => {
    expect(subscriber.channels).toEqual(['gw:reply:inst_1']);
    expect(waiters.channel).toBe('gw:reply:inst_1');
  });

  it('resolves a waiter with the outcome its reply carries, and forgets it', async () => {
    const answer = waitFor('task_a');
    expect(waiters.waiting).toBe(1);
    subscriber.publish(encodeOutcome('task_a', succeeded));
    await expect(answer).resolves.toEqual({ outcome: succeeded });
    expect(waiters.waiting).toBe(0);
  });

  it('answers a burst of replies sixteen callers per turn of the event loop', async () => {
    jest.useRealTimers();
    const ids = Array.from({ length: 40 }, (_, i) => `task_${i}`);
    let answered = 0;
    for (const id of ids) void waitFor(id).then(() => answered++);
    const settle = async () => {
      for (let tick = 0; tick < 10; tick++) await Promise.resolve();
    };
    for (const id of ids) subscriber.publish(encodeOutcome(id, succeeded));
    await settle();
    expect(answered).toBe(16);
    // The rest go in later turns, after whatever I/O is waiting.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(40);
    expect(waiters.waiting).toBe(0);
  });

  it('ignores a reply for a task nobody here waits for, and an unreadable message', async () => {
    const answer = waitFor('task_a');
    subscriber.publish(encodeOutcome('task_other', succeeded));
    subscriber.publish('not an outcome');
    expect(waiters.waiting).toBe(1);
    subscriber.publish(encodeOutcome('task_a', succeeded));
    await expect(answer).resolves.toEqual({ outcome: succeeded });
  });

  it('rejects with Timeout carrying the task id once the sync timeout passes', async () => {
    const answer = waitFor('task_slow');
    await jest.advanceTimersByTimeAsync(SYNC_TIMEOUT_MS);
    const { error } = (await answer) as { error: unknown };
    expect(error).toMatchObject({ code: 'Timeout', details: { task_id: 'task_slow' } });
    expect((error as Error).message).toContain('GET /v1/tasks/task_slow');
    expect(waiters.waiting).toBe(0);
  });

  it('recovers a reply lost on the channel through the periodic re-check', async () => {
    const answer = waitFor('task_lost');
    outcomes.known.set('task_lost', succeeded);
    await jest.advanceTimersByTimeAsync(WAIT_RECHECK_INTERVAL_MS);
    await expect(answer).resolves.toEqual({ outcome: succeeded });
  });

  it('leaves a wait whose job is still running to its reply', async () => {
    const answer = waitFor('task_running');
    await jest.advanceTimersByTimeAsync(3 * WAIT_RECHECK_INTERVAL_MS);
    expect(waiters.waiting).toBe(1);
    subscriber.publish(encodeOutcome('task_running', succeeded));
    await expect(answer).resolves.toEqual({ outcome: succeeded });
  });

  it('re-checks every pending wait when the subscriber reconnects', async () => {
    const answer = waitFor('task_dropped');
    outcomes.known.set('task_dropped', succeeded);
    subscriber.reconnect();
    await jest.advanceTimersByTimeAsync(0);
    await expect(answer).resolves.toEqual({ outcome: succeeded });
  });

  it('answers InternalError for a job that failed without an outcome', async () => {
    const answer = waitFor('task_stalled');
    queues.jobs.set('task_stalled', { finishedOn: Date.now(), failedReason: 'job stalled more than allowable limit' });
    await jest.advanceTimersByTimeAsync(WAIT_RECHECK_INTERVAL_MS);
    const { outcome } = (await answer) as { outcome: TaskOutcome };
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'InternalError', message: 'the task failed: job stalled more than allowable limit' },
    });
  });

  it('ends a wait with the error of a job that could not be added', async () => {
    const answer = waitFor('task_refused');
    const refused = new Error('Redis is away');
    waiters.fail('task_refused', refused);
    await expect(answer).resolves.toEqual({ error: refused });
  });

  it('ends a dropped wait ClientClosedRequest, so its request finishes, and says which queue it was on', async () => {
    const answer = waitFor('task_left');
    expect(waiters.drop('task_left')).toBe(QueueName.Embeddings);
    expect(waiters.drop('task_left')).toBeUndefined();
    subscriber.publish(encodeOutcome('task_left', succeeded));
    const { error } = (await answer) as { error: unknown };
    expect(error).toMatchObject({ code: 'ClientClosedRequest', status: 499, details: { task_id: 'task_left' } });
  });

  it('answers every pending wait Timeout on shutdown', async () => {
    const answer = waitFor('task_a');
    waiters.beforeApplicationShutdown();
    const { error } = (await answer) as { error: unknown };
    expect(error).toMatchObject({ code: 'Timeout', details: { task_id: 'task_a' } });
  });
});
