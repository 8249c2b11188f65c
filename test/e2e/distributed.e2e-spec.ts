import { ChildProcess } from 'node:child_process';
import { GatewayRedis, LeaseSemaphore } from '@gateway/redis';
import Redis from 'ioredis';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  postJson,
  spawnWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
  waitUntil,
} from '../helpers/gateway';

describe('several api instances and workers on one Redis and MongoDB', () => {
  const upstream = new OpenAiFake();

  beforeAll(() => upstream.start());
  afterAll(() => upstream.stop());
  beforeEach(() => {
    upstream.reset();
    upstream.setDelay(0);
  });

  it('answers each caller of two api instances with its own result under concurrent load', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    const [apiA, apiB, workerA, workerB] = await Promise.all([
      startApi(env),
      startApi(env),
      startWorker(env),
      startWorker(env),
    ]);
    try {
      const { apiKey } = await createApplication(apiA);
      upstream.setDelay(5);
      const texts = Array.from({ length: 200 }, (_, i) => `request number ${i}`);
      const responses = await Promise.all(
        texts.map((text, i) =>
          postJson(
            `${(i % 2 ? apiA : apiB).url}/v1/embeddings`,
            { model: 'text-embedding-v4', input: text, dimensions: 64 },
            apiKey,
          ),
        ),
      );
      responses.forEach((response, i) => {
        expect(response.status).toBe(200);
        expect(response.body.data[0].embedding).toEqual(fakeVector(texts[i], 64));
      });
      expect(upstream.calls).toHaveLength(200);
      // Every task got its record, readable from either instance.
      const ids = responses.map((r) => r.headers.get('x-task-id'));
      expect(new Set(ids).size).toBe(200);
      const checks = await Promise.all(
        ids.slice(0, 20).map((id, i) => getJson(`${(i % 2 ? apiB : apiA).url}/v1/tasks/${id}`, apiKey)),
      );
      checks.forEach((task) => expect(task.body.status).toBe('succeeded'));
    } finally {
      await Promise.all([apiA.close(), apiB.close(), workerA.close(), workerB.close()]);
    }
  });

  it("caps a route's in-flight upstream calls at max_concurrency across all workers", async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    const [api, workerA, workerB] = await Promise.all([startApi(env), startWorker(env), startWorker(env)]);
    try {
      const { apiKey } = await createApplication(api);
      upstream.setDelay(150);
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          postJson(`${api.url}/v1/embeddings`, { model: 'capped-embedding', input: `n${i}` }, apiKey),
        ),
      );
      responses.forEach((response) => expect(response.status).toBe(200));
      expect(upstream.calls).toHaveLength(10);
      expect(upstream.maxInFlight).toBe(2);
    } finally {
      await Promise.all([api.close(), workerA.close(), workerB.close()]);
    }
  });

  it('frees a slot whose holder never released it once the lease expires', async () => {
    const api = await startApi(testEnv());
    try {
      const semaphore = api.app.get(LeaseSemaphore);
      const held = await semaphore.tryAcquire('crash-test', 1, 300);
      expect(held).not.toBeNull();
      expect(await semaphore.tryAcquire('crash-test', 1, 300)).toBeNull();
      await new Promise((r) => setTimeout(r, 350));
      const next = await semaphore.tryAcquire('crash-test', 1, 300);
      expect(next).not.toBeNull();
      await next!.release();
      expect(await semaphore.tryAcquire('crash-test', 1, 300)).not.toBeNull();
    } finally {
      await api.close();
    }
  });

  it('recovers a reply lost on the pub/sub channel through the job-state re-check', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, WAIT_RECHECK_INTERVAL_MS: 300 });
    const api = await startApi(env);
    const { apiKey } = await createApplication(api);
    // Swallow replies: this instance's channel is renamed so the worker publishes into the void.
    const gateway = api.app.get((await import('@gateway/queue')).ReplyWaiters);
    Object.defineProperty(gateway, 'channel', { value: `${gateway.channel}:lost` });
    const worker = await startWorker(env);
    try {
      const started = Date.now();
      const response = await postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'lost reply', dimensions: 64 },
        apiKey,
      );
      expect(response.status).toBe(200);
      expect(response.body.data[0].embedding).toEqual(fakeVector('lost reply', 64));
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      await Promise.all([api.close(), worker.close()]);
    }
  });

  it('finishes a job whose worker process is killed mid-call (stalled-job recovery)', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, JOB_LOCK_MS: 1500, SYNC_TIMEOUT_MS: 30_000 });
    const api = await startApi(env);
    let doomed: ChildProcess | undefined;
    let rescuer: { close(): Promise<void> } | undefined;
    try {
      const { apiKey } = await createApplication(api);
      doomed = spawnWorker(env);
      upstream.setDelay(4000);
      const pending = postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'survivor', dimensions: 64 },
        apiKey,
      );
      await waitUntil(() => upstream.calls.length === 1, 'the first worker to call the upstream', 20_000);
      doomed.kill('SIGKILL');
      upstream.setDelay(0);
      rescuer = await startWorker(env);
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.body.data[0].embedding).toEqual(fakeVector('survivor', 64));
      expect(upstream.calls.length).toBe(2);
      const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
      expect(task.body.status).toBe('succeeded');
    } finally {
      doomed?.kill('SIGKILL');
      await Promise.all([api.close(), rescuer?.close()]);
    }
  });

  it('lets a worker that is shutting down finish its active job, answer the caller and record the task', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    const [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey } = await createApplication(api);
      upstream.setDelay(600);
      const pending = postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'during shutdown', dimensions: 64 },
        apiKey,
      );
      await waitUntil(() => upstream.calls.length === 1, 'the worker to take the job');
      await worker.close();
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.body.data[0].embedding).toEqual(fakeVector('during shutdown', 64));
      const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
      expect(task.body.status).toBe('succeeded');
    } finally {
      await api.close();
    }
  });

  it('removes the job of a caller who disconnects before any worker picks it up', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    const api = await startApi(env);
    try {
      const { apiKey } = await createApplication(api);
      const abort = new AbortController();
      const pending = postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'never run' },
        apiKey,
        abort.signal,
      ).catch((e) => e);
      const redis = new Redis(String(env.REDIS_URL));
      const waitingKey = api.app.get(GatewayRedis).keys.bullmq('embeddings', 'wait');
      await waitUntil(async () => (await redis.llen(waitingKey)) === 1, 'the job to be queued');
      const [taskId] = await redis.lrange(waitingKey, 0, 0);
      abort.abort();
      await pending;
      await waitUntil(async () => (await redis.llen(waitingKey)) === 0, 'the job to be removed');
      redis.disconnect();
      const worker = await startWorker(env);
      await new Promise((r) => setTimeout(r, 300));
      await worker.close();
      expect(upstream.calls).toHaveLength(0);
      const task = await waitFor(
        () => getJson(`${api.url}/v1/tasks/${taskId}`, apiKey),
        (answer) => answer.status === 200,
        'the cancelled task record',
      );
      expect(task.body).toMatchObject({ status: 'cancelled', cost: 0, error: { code: 'ClientClosedRequest' } });
    } finally {
      await api.close();
    }
  });
});
