import { AppConfig, GatewayError } from '@gateway/common';
import { JobDispatcher, TaskOutcome } from '@gateway/queue';
import { IdempotencyClaim, IdempotencyEntry, IdempotencyStore } from '@gateway/redis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EnqueueHooks, IdempotentCall, IdempotentRequests } from './idempotent-requests.service';
import { FinalOutcomes } from './tasks/final-outcomes.service';

/** The Redis entries of IdempotencyStore, in memory, with the same claim semantics (first writer owns the key). */
class MemoryIdempotencyStore {
  readonly entries = new Map<string, IdempotencyEntry>();
  readonly kept = new Set<string>();

  async claim(appId: string, key: string, entry: IdempotencyEntry): Promise<IdempotencyClaim> {
    const existing = this.entries.get(`${appId}:${key}`);
    if (existing) return { owner: false, entry: existing };
    this.entries.set(`${appId}:${key}`, entry);
    return { owner: true };
  }

  async keep(appId: string, key: string, entry: IdempotencyEntry): Promise<void> {
    this.entries.set(`${appId}:${key}`, entry);
    this.kept.add(`${appId}:${key}`);
  }

  async release(appId: string, key: string, taskId: string): Promise<void> {
    if (this.entries.get(`${appId}:${key}`)?.taskId === taskId) this.entries.delete(`${appId}:${key}`);
  }

  async read(appId: string, key: string): Promise<IdempotencyEntry | null> {
    return this.entries.get(`${appId}:${key}`) ?? null;
  }
}

/** Outcomes by task id, as the reply channel's Redis key or the task record would give them. */
class FakeOutcomes {
  readonly finals = new Map<string, TaskOutcome | 'cancelled'>();

  async findFinal(taskId: string): Promise<TaskOutcome | 'cancelled' | null> {
    return this.finals.get(taskId) ?? null;
  }
}

/** Jobs by task id: what `jobState` finds in BullMQ. */
class FakeGateway {
  readonly jobs = new Set<string>();

  async jobState(taskId: string): Promise<{ state: string } | null> {
    return this.jobs.has(taskId) ? { state: 'active' } : null;
  }
}

/** The parts of Fastify's reply a replay sets. */
class FakeReply {
  readonly headers: Record<string, string> = {};
  statusCode = 200;
  readonly raw = { destroyed: false };

  header(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  status(code: number): this {
    this.statusCode = code;
    return this;
  }
}

describe('IdempotentRequests', () => {
  let store: MemoryIdempotencyStore;
  let outcomes: FakeOutcomes;
  let gateway: FakeGateway;
  let requests: IdempotentRequests;
  const config = { SYNC_TIMEOUT_MS: 1_000 } as AppConfig;

  beforeEach(() => {
    store = new MemoryIdempotencyStore();
    outcomes = new FakeOutcomes();
    gateway = new FakeGateway();
    requests = new IdempotentRequests(
      config,
      store as unknown as IdempotencyStore,
      outcomes as unknown as FinalOutcomes,
      gateway as unknown as JobDispatcher,
    );
  });

  const call = (fingerprint = 'body-a', mode: 'sync' | 'async' = 'sync'): IdempotentCall & { reply: FakeReply } => {
    const reply = new FakeReply();
    return {
      appId: 'app_1',
      key: 'key-1',
      fingerprint,
      mode,
      queue: 'chat',
      reply,
      http: { request: {} as FastifyRequest, reply: reply as unknown as FastifyReply },
    };
  };

  /** A first request that enqueues its job and, when `finish` is given, ends with that outcome. */
  const enqueueing = (finish?: TaskOutcome) => async (taskId: string, hooks: EnqueueHooks) => {
    await hooks.enqueued();
    gateway.jobs.add(taskId);
    if (finish) outcomes.finals.set(taskId, finish);
    return `ran ${taskId}`;
  };

  it('runs the first request and keeps its key once the job is enqueued', async () => {
    const answer = await requests.once(call(), enqueueing());
    expect(answer).toMatch(/^ran task_/);
    expect(store.kept.has('app_1:key-1')).toBe(true);
  });

  it('replays the first answer to a duplicate without running it again', async () => {
    const first = await requests.once(call(), enqueueing({ ok: true, body: '{"n":1}', provider: 'p', providerMs: 3 }));
    const run = jest.fn();
    const duplicate = call();
    await expect(requests.once(duplicate, run)).resolves.toBe('{"n":1}');
    expect(run).not.toHaveBeenCalled();
    expect(duplicate.reply.headers).toMatchObject({
      'idempotent-replayed': 'true',
      'x-task-id': first.replace('ran ', ''),
    });
  });

  it('replays a failure as the same error', async () => {
    const error = new GatewayError('UpstreamError', 'the upstream failed').toJSON();
    await requests.once(call(), enqueueing({ ok: false, error, providerMs: 1 }));
    await expect(requests.once(call(), jest.fn())).rejects.toMatchObject({
      code: 'UpstreamError',
      message: 'the upstream failed',
    });
  });

  it('answers a duplicate of an asynchronous request with its 202 again', async () => {
    await requests.once(call('body-a', 'async'), enqueueing());
    const duplicate = call('body-a', 'async');
    const answer = JSON.parse(await requests.once(duplicate, jest.fn()));
    expect(answer).toEqual({ task_id: expect.stringMatching(/^task_/), status: 'queued' });
    expect(duplicate.reply.statusCode).toBe(202);
  });

  it('refuses the same key with another body', async () => {
    await requests.once(call('body-a'), enqueueing());
    await expect(requests.once(call('body-b'), jest.fn())).rejects.toMatchObject({
      code: 'IdempotencyKeyReused',
      param: 'Idempotency-Key',
    });
  });

  it('frees the key of a request refused before enqueueing, so a retry runs afresh', async () => {
    await expect(
      requests.once(call(), async (_taskId, hooks) => {
        await hooks.notEnqueued();
        throw new GatewayError('RateLimited', 'slow down');
      }),
    ).rejects.toMatchObject({ code: 'RateLimited' });
    const retry = jest.fn(async () => 'second run');
    await expect(requests.once(call(), retry)).resolves.toBe('second run');
  });

  it('runs a duplicate whose first request was cancelled before pick-up', async () => {
    const firstTaskId = (await requests.once(call(), enqueueing())).replace('ran ', '');
    outcomes.finals.set(firstTaskId, 'cancelled');
    const rerun = jest.fn(async (taskId: string) => taskId);
    const taskId = await requests.once(call(), rerun);
    expect(rerun).toHaveBeenCalledTimes(1);
    expect(taskId).not.toBe(firstTaskId);
  });

  it('runs a duplicate whose first request died before enqueueing, once that claim has expired', async () => {
    await store.claim('app_1', 'key-1', { fingerprint: 'body-a', taskId: 'task_gone', async: false });
    setTimeout(() => store.entries.delete('app_1:key-1'), 30);
    const rerun = jest.fn(async () => 'ran again');
    await expect(requests.once(call(), rerun)).resolves.toBe('ran again');
  });

  it('gives a waiting duplicate a Timeout with the task id when the first request runs past the sync timeout', async () => {
    requests = new IdempotentRequests(
      { SYNC_TIMEOUT_MS: 120 } as AppConfig,
      store as unknown as IdempotencyStore,
      outcomes as unknown as FinalOutcomes,
      gateway as unknown as JobDispatcher,
    );
    const taskId = (await requests.once(call(), enqueueing())).replace('ran ', '');
    await expect(requests.once(call(), jest.fn())).rejects.toMatchObject({
      code: 'Timeout',
      details: { task_id: taskId },
    });
  });
});
