import { CatalogService } from '@gateway/catalog';
import { EventEmitter } from 'node:events';
import { AppConfig, GatewayError } from '@gateway/common';
import { ENDPOINTS } from '@gateway/contracts';
import { TasksRepository } from '@gateway/db';
import { Admission, EmbeddingsJob, JobDispatcher, TaskOutcome } from '@gateway/queue';
import { IdempotencyClaim, IdempotencyEntry, IdempotencyStore } from '@gateway/redis';
import { LimitsService, Principal } from '@gateway/tenancy';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { IdempotentRequests } from './idempotent-requests.service';
import { StreamRelay } from './stream-relay.service';
import { Submission, TaskSubmitter } from './task-submitter.service';
import { FinalOutcomes } from './tasks/final-outcomes.service';

const ADMISSION: Admission = { leaseId: 'lease_1' };
const answered: TaskOutcome = { ok: true, body: '{"data":[]}', provider: 'primary', providerMs: 7 };

/** The limits of one application: admits with a concurrency lease, or refuses as the admission script would. */
class FakeLimits {
  refuse = false;
  readonly settled: [string, Admission | undefined, number][] = [];

  admit(): Promise<{ admission: Admission }> {
    if (this.refuse) return Promise.reject(new GatewayError('RateLimited', 'the daily call limit is reached'));
    return Promise.resolve({ admission: ADMISSION });
  }

  settle(appId: string, admission: Admission | undefined, tokens: number): Promise<void> {
    this.settled.push([appId, admission, tokens]);
    return Promise.resolve();
  }
}

/** BullMQ as the submitter sees it: jobs added, a reply that comes when the test says, a job taken back or not. */
class FakeDispatcher {
  readonly added: { payload: EmbeddingsJob; waited: boolean }[] = [];
  readonly removed: string[] = [];
  addFails = false;
  pickedUp = false;
  private answer?: (outcome: TaskOutcome) => void;

  async dispatchAndWait(_queue: string, payload: EmbeddingsJob, onEnqueued?: () => unknown): Promise<TaskOutcome> {
    if (this.addFails) throw new Error('Redis is away');
    this.added.push({ payload, waited: true });
    await onEnqueued?.();
    return new Promise<TaskOutcome>((resolve) => (this.answer = resolve));
  }

  dispatch(_queue: string, payload: EmbeddingsJob): Promise<void> {
    this.added.push({ payload, waited: false });
    return Promise.resolve();
  }

  abandon(taskId: string): Promise<boolean> {
    if (this.pickedUp) return Promise.resolve(false);
    this.removed.push(taskId);
    return Promise.resolve(true);
  }

  jobState(taskId: string): Promise<{ state: string } | null> {
    return Promise.resolve(this.added.some((job) => job.payload.taskId === taskId) ? { state: 'waiting' } : null);
  }

  reply(outcome: TaskOutcome): void {
    this.answer?.(outcome);
  }
}

/** IdempotencyStore's entries in memory (first writer owns the key). */
class MemoryIdempotencyStore {
  readonly entries = new Map<string, IdempotencyEntry>();

  claim(appId: string, key: string, entry: IdempotencyEntry): Promise<IdempotencyClaim> {
    const existing = this.entries.get(`${appId}:${key}`);
    if (existing) return Promise.resolve({ owner: false, entry: existing });
    this.entries.set(`${appId}:${key}`, entry);
    return Promise.resolve({ owner: true });
  }

  keep(appId: string, key: string, entry: IdempotencyEntry): Promise<void> {
    this.entries.set(`${appId}:${key}`, entry);
    return Promise.resolve();
  }

  release(appId: string, key: string, taskId: string): Promise<void> {
    if (this.entries.get(`${appId}:${key}`)?.taskId === taskId) this.entries.delete(`${appId}:${key}`);
    return Promise.resolve();
  }

  read(appId: string, key: string): Promise<IdempotencyEntry | null> {
    return Promise.resolve(this.entries.get(`${appId}:${key}`) ?? null);
  }
}

/** The exchange Fastify would hand a controller; `leave()` is the client closing the connection mid-wait. */
function exchange(headers: Record<string, string> = {}) {
  const raw = Object.assign(new EventEmitter(), { writableFinished: false });
  const reply = {
    raw,
    statusCode: 200,
    sent: {} as Record<string, string>,
    header(name: string, value: string) {
      this.sent[name] = value;
      return this;
    },
    headers(values: Record<string, string>) {
      Object.assign(this.sent, values);
      return this;
    },
    status(code: number) {
      this.statusCode = code;
      return this;
    },
  };
  const request = {
    id: 'req_1',
    method: 'POST',
    url: '/v1/embeddings',
    headers,
    rawBody: Buffer.from('{}'),
    gatewayTiming: { startedAt: 0, providerMs: 0 },
  };
  return { request, reply, leave: () => raw.emit('close') };
}

const principal = { appId: 'app_1', scope: { capabilities: [], models: [] }, webhooks: false } as unknown as Principal;

function submission(http: ReturnType<typeof exchange>): Submission<typeof ENDPOINTS.embeddings> {
  return {
    endpoint: ENDPOINTS.embeddings,
    reserveTokens: () => 10,
    principal,
    model: 'text-embedding-v4',
    resolvedModel: 'text-embedding-v4',
    request: { input: ['hello'], encodingFormat: 'float', dimensions: 64 },
    http: { request: http.request as unknown as FastifyRequest, reply: http.reply as unknown as FastifyReply },
  };
}

/** Lets the abandon step, started from the connection's close event, run to its end. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TaskSubmitter', () => {
  let limits: FakeLimits;
  let dispatcher: FakeDispatcher;
  let keys: MemoryIdempotencyStore;
  let recorded: Record<string, unknown>[];
  let submitter: TaskSubmitter;

  beforeEach(() => {
    limits = new FakeLimits();
    dispatcher = new FakeDispatcher();
    keys = new MemoryIdempotencyStore();
    recorded = [];
    const tasks = { record: (task: Record<string, unknown>) => Promise.resolve(void recorded.push(task)) };
    const finals = { findFinal: () => Promise.resolve(null) };
    const idempotent = new IdempotentRequests(
      { SYNC_TIMEOUT_MS: 1_000 } as AppConfig,
      keys as unknown as IdempotencyStore,
      finals as unknown as FinalOutcomes,
      dispatcher as unknown as JobDispatcher,
    );
    submitter = new TaskSubmitter(
      dispatcher as unknown as JobDispatcher,
      tasks as unknown as TasksRepository,
      limits as unknown as LimitsService,
      idempotent,
      {} as StreamRelay,
      { find: () => undefined } as unknown as CatalogService,
      pino({ level: 'silent' }),
    );
  });

  it('admits a synchronous call, dispatches its job and answers the body its reply carries', async () => {
    const http = exchange({ 'idempotency-key': 'key-1' });
    const answer = submitter.submit(submission(http));
    await settle();
    expect(dispatcher.added).toHaveLength(1);
    const { payload, waited } = dispatcher.added[0];
    expect(waited).toBe(true);
    expect(payload).toMatchObject({
      appId: 'app_1',
      requestId: 'req_1',
      endpoint: 'embeddings',
      admission: ADMISSION,
      input: ['hello'],
    });
    expect(http.reply.sent['x-task-id']).toBe(payload.taskId);
    expect(keys.entries.get('app_1:key-1')).toEqual({
      fingerprint: expect.any(String),
      taskId: payload.taskId,
      async: false,
    });

    dispatcher.reply(answered);
    await expect(answer).resolves.toBe(answered.body);
    expect(http.request.gatewayTiming.providerMs).toBe(7);
    // The worker settles the limits of a task that ran.
    expect(limits.settled).toEqual([]);
  });

  it('answers a failed outcome as its error', async () => {
    const answer = submitter.submit(submission(exchange()));
    await settle();
    dispatcher.reply({
      ok: false,
      providerMs: 0,
      error: new GatewayError('UpstreamError', 'every route failed').toJSON(),
    });
    await expect(answer).rejects.toMatchObject({ code: 'UpstreamError', message: 'every route failed' });
  });

  it('refuses a call over a limit: nothing is dispatched and the Idempotency-Key is free for a retry', async () => {
    limits.refuse = true;
    await expect(submitter.submit(submission(exchange({ 'idempotency-key': 'key-1' })))).rejects.toMatchObject({
      code: 'RateLimited',
    });
    expect(dispatcher.added).toEqual([]);
    expect(keys.entries.size).toBe(0);
    expect(limits.settled).toEqual([]);

    limits.refuse = false;
    void submitter.submit(submission(exchange({ 'idempotency-key': 'key-1' })));
    await settle();
    expect(dispatcher.added).toHaveLength(1);
  });

  it('gives back the limits and the Idempotency-Key of a call whose job could not be added, and no task id', async () => {
    dispatcher.addFails = true;
    const http = exchange({ 'idempotency-key': 'key-1' });
    await expect(submitter.submit(submission(http))).rejects.toThrow('Redis is away');
    expect(limits.settled).toEqual([['app_1', ADMISSION, 0]]);
    expect(keys.entries.size).toBe(0);
    expect(http.reply.sent).not.toHaveProperty('x-task-id');
  });

  it('takes back the job of a caller who leaves before pick-up, frees its limits and records it cancelled', async () => {
    const http = exchange();
    void submitter.submit(submission(http));
    await settle();
    const { taskId } = dispatcher.added[0].payload;
    http.leave();
    await settle();
    expect(dispatcher.removed).toEqual([taskId]);
    expect(limits.settled).toEqual([['app_1', ADMISSION, 0]]);
    expect(recorded).toEqual([
      expect.objectContaining({
        _id: taskId,
        status: 'cancelled',
        attempts: 0,
        costNanos: 0,
        error: expect.objectContaining({ status: 499, code: 'ClientClosedRequest' }),
      }),
    ]);
  });

  it('lets a job a worker already holds finish when its caller leaves, keeping its limits', async () => {
    dispatcher.pickedUp = true;
    const http = exchange();
    void submitter.submit(submission(http));
    await settle();
    http.leave();
    await settle();
    expect(dispatcher.removed).toEqual([]);
    expect(limits.settled).toEqual([]);
    expect(recorded).toEqual([]);
  });

  it('answers X-Async at once with 202 and the task id, leaving the job to run', async () => {
    const http = exchange({ 'x-async': 'enable', 'idempotency-key': 'key-1' });
    const answer = JSON.parse(await submitter.submit(submission(http))) as { task_id: string; status: string };
    expect(http.reply.statusCode).toBe(202);
    expect(answer).toEqual({ task_id: expect.stringMatching(/^task_/), status: 'queued' });
    expect(dispatcher.added).toEqual([{ payload: expect.objectContaining({ taskId: answer.task_id }), waited: false }]);
    expect(http.reply.sent['x-task-id']).toBe(answer.task_id);
    expect(keys.entries.get('app_1:key-1')).toMatchObject({ taskId: answer.task_id, async: true });
  });
});
