import { OperationsListener } from '@gateway/metrics';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  metricValue,
  postJson,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';

describe('tasks, sync timeout and operations endpoints', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, SYNC_TIMEOUT_MS: 400 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  beforeEach(() => {
    upstream.reset();
    upstream.setDelay(0);
  });

  it('answers 504 Timeout with the task id when the sync wait elapses, and the task finishes later', async () => {
    upstream.setDelay(1200);
    const response = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'slow', dimensions: 64 },
      apiKey,
    );
    expect(response.status).toBe(504);
    expect(response.body.error.code).toBe('Timeout');
    const taskId = response.body.task_id;
    expect(taskId).toMatch(/^task_/);

    const running = await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey);
    expect(running.status).toBe(200);
    expect(['queued', 'running']).toContain(running.body.status);

    const done = await waitFor(
      () => getJson(`${api.url}/v1/tasks/${taskId}`, apiKey),
      (answer) => answer.body.status === 'succeeded',
      'the task to succeed',
    );
    expect(done.body.result.data[0].embedding).toEqual(fakeVector('slow', 64));
    expect(done.body).toMatchObject({
      id: taskId,
      object: 'task',
      model: 'text-embedding-v4',
      usage: { prompt_tokens: 1 },
    });
  });

  it('shows a task as succeeded the moment its caller has the answer', async () => {
    for (let i = 0; i < 60; i++) {
      const response = await postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: `race ${i}`, dimensions: 64 },
        apiKey,
      );
      const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
      expect(task.body.status).toBe('succeeded');
      expect(task.body.result).toEqual(response.body);
      // Whether read from the delivered outcome or the record, the view carries cost and timings; 0.0005 per 1k
      // tokens is 500 nanos a token.
      expect(task.body).toMatchObject({
        cost: (task.body.usage.prompt_tokens * 500) / 1e9,
        started_at: expect.any(Number),
        finished_at: expect.any(Number),
      });
    }
  });

  it("hides another application's task (404)", async () => {
    const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'mine' }, apiKey);
    const taskId = response.headers.get('x-task-id');
    const other = await createApplication(api, 'other');
    const foreign = await getJson(`${api.url}/v1/tasks/${taskId}`, other.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NotFound');
    expect((await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey)).status).toBe(200);
    expect((await getJson(`${api.url}/v1/tasks/task_${'x'.repeat(22)}`, apiKey)).status).toBe(404);
  });

  it('puts X-Request-Id and X-Gateway-Overhead-Ms on every /v1 response', async () => {
    const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(Number(response.headers.get('x-gateway-overhead-ms'))).toBeGreaterThanOrEqual(0);
    const error = await postJson(`${api.url}/v1/embeddings`, {}, apiKey);
    expect(error.headers.get('x-request-id')).toBe(error.body.request_id);
    expect(error.headers.get('x-gateway-overhead-ms')).not.toBeNull();
  });

  it('lists every catalog model, the image-edit alias resolving to the newest snapshot', async () => {
    const models = await getJson(`${api.url}/v1/models`, apiKey);
    expect(models.body.object).toBe('list');
    const alias = models.body.data.find((m: { id: string }) => m.id === 'x-image-edit-plus');
    expect(alias).toMatchObject({ object: 'model', alias_of: 'x-image-edit-plus-2025-12-15' });
    expect(models.body.data.map((m: { id: string }) => m.id)).toEqual(
      expect.arrayContaining(['text-embedding-v4', 'x-chat']),
    );
  });

  it('answers unknown routes with the envelope', async () => {
    const response = await getJson(`${api.url}/v1/nothing-here`, apiKey);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NotFound');
  });

  it('refuses /metrics and /health/ready on the public port with a 404 envelope, and keeps /health/live there', async () => {
    for (const path of ['/metrics', '/health/ready']) {
      const response = await getJson(`${api.url}${path}`);
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: 'NotFound', type: 'invalid_request_error' });
      expect(response.body.request_id).toMatch(/^req_/);
    }
    expect(await getJson(`${api.url}/health/live`)).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('serves metrics and readiness on the operations listeners of the api and the worker', async () => {
    const ready = await getJson(`${api.metricsUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.info).toMatchObject({ mongodb: { status: 'up' }, redis: { status: 'up' } });
    const metrics = await (await fetch(`${api.metricsUrl}/metrics`)).text();
    expect(
      metricValue(metrics, 'gateway_http_requests_total', {
        route: '/v1/embeddings',
        status_code: '200',
        service: 'api',
      }),
    ).toBeGreaterThan(0);
    expect(metricValue(metrics, 'gateway_queue_jobs', { queue: 'embeddings', state: 'waiting' })).toBe(0);
    expect(metricValue(metrics, 'gateway_overhead_seconds_count', { route: '/v1/embeddings' })).toBeGreaterThan(0);

    const workerUrl = await worker.app.get(OperationsListener).listen(0, '127.0.0.1');
    expect((await getJson(`${workerUrl}/health/ready`)).status).toBe(200);
    const workerMetrics = await (await fetch(`${workerUrl}/metrics`)).text();
    const succeeded = {
      queue: 'embeddings',
      model: 'text-embedding-v4',
      provider: 'openai-compatible',
      outcome: 'succeeded',
      service: 'worker',
    };
    expect(metricValue(workerMetrics, 'gateway_job_duration_seconds_count', succeeded)).toBeGreaterThan(0);
    expect(
      metricValue(workerMetrics, 'gateway_upstream_request_duration_seconds_count', {
        provider: 'openai-compatible',
        outcome: 'ok',
      }),
    ).toBeGreaterThan(0);
  });
});
