import { ApplicationsRepository, WebhookDeliveriesRepository } from '@gateway/db';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient } from '../helpers/console';
import {
  createApplication,
  postJson,
  ROOT,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
  waitUntil,
} from '../helpers/gateway';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import { readmeVerifier, WebhookReceiver } from '../helpers/webhook-receiver';

/** docs/contracts.md (webhooks): signed events to the application's callback URL, retried, recorded, SSRF-guarded. */
describe('webhooks', () => {
  const openai = new OpenAiFake();
  // The receiver plays a host the operator allowed (OUTBOUND_ALLOW_CIDRS); 127.0.0.1 stays refused.
  const receiver = new WebhookReceiver('127.0.0.2');
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let app: { appId: string; apiKey: string; secretKey: string };
  let deliveries: WebhookDeliveriesRepository;
  const verifyWebhook = readmeVerifier(ROOT);

  beforeAll(async () => {
    [dashscope] = await Promise.all([startDashScopeFake(), openai.start(), receiver.start()]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: openai.baseUrl,
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: 'k',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
      WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms,200ms',
      AUTH_CACHE_TTL_MS: 100,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    app = await createApplication(api, 'with-callback', { callbackUrl: receiver.url });
    deliveries = api.app.get(WebhookDeliveriesRepository);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([openai.stop(), dashscope?.close(), receiver.stop()]);
  });

  beforeEach(() => {
    receiver.reset();
    openai.reset();
    dashscope.reset();
  });

  const embed = (apiKey = app.apiKey, input = 'hello hooks') =>
    postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input, dimensions: 64 }, apiKey);

  it('POSTs a task.succeeded event that the README snippet verifies, and a tampered body does not', async () => {
    const response = await embed();
    expect(response.status).toBe(200);
    const taskId = response.headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(taskId).length === 1, 'the webhook');
    const [hook] = receiver.delivered(taskId);
    expect(hook.headers['webhook-id']).toMatch(/^msg_task_/);
    expect(hook.headers['webhook-signature']).toMatch(/^v1,/);
    expect(verifyWebhook(app.secretKey, hook.headers, hook.rawBody)).toBe(true);
    expect(verifyWebhook(app.secretKey, hook.headers, hook.rawBody.replace('succeeded', 'failed'))).toBe(false);
    expect(verifyWebhook('ss-not-the-secret', hook.headers, hook.rawBody)).toBe(false);
    expect(hook.body).toMatchObject({
      type: 'task.succeeded',
      data: {
        task_id: taskId,
        app_id: app.appId,
        model: 'text-embedding-v4',
        status: 'succeeded',
        usage: { prompt_tokens: expect.any(Number) },
        error: null,
        result_urls: [],
      },
    });
  });

  it('carries the image URLs of an image edit, and the error of a failed task', async () => {
    const image = dataUri(await noisyPng(64, 48));
    const edited = await postJson(
      `${api.url}/v1/images/edits`,
      editBody('x-image-edit-plus-2025-10-30', [image], 'invert', { n: 2 }),
      app.apiKey,
    );
    const editTask = edited.headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(editTask).length === 1, 'the image webhook');
    expect(receiver.delivered(editTask)[0].body.data.result_urls).toEqual(
      edited.body.data.map((d: { url: string }) => d.url),
    );

    dashscope.failWhen(() => true, { status: 400, code: 'DataInspectionFailed' });
    const failed = await postJson(
      `${api.url}/v1/images/edits`,
      editBody('x-image-edit-plus-2025-10-30', [image], 'invert'),
      app.apiKey,
    );
    expect(failed.status).toBe(400);
    const failedTask = failed.headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(failedTask).length === 1, 'the failure webhook');
    expect(receiver.delivered(failedTask)[0].body).toMatchObject({
      type: 'task.failed',
      data: { status: 'failed', error: { code: 'ContentRejected' } },
    });
  });

  it('retries a receiver that answers 500 twice, then delivers exactly once; the API answer never waits for it', async () => {
    receiver.answer(500, 500, 200);
    const started = Date.now();
    const response = await embed(app.apiKey, 'flaky receiver');
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    const taskId = response.headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(taskId).some((hook) => hook.answered === 200), 'the third attempt');
    await new Promise((resolve) => setTimeout(resolve, 600));
    const hooks = receiver.delivered(taskId);
    expect(hooks.map((hook) => hook.answered)).toEqual([500, 500, 200]);
    // Every attempt carries the same id and body, each with a fresh valid signature.
    expect(new Set(hooks.map((hook) => hook.headers['webhook-id'])).size).toBe(1);
    expect(new Set(hooks.map((hook) => hook.rawBody)).size).toBe(1);
    hooks.forEach((hook) => expect(verifyWebhook(app.secretKey, hook.headers, hook.rawBody)).toBe(true));
    const today = new Date().toISOString().slice(0, 10);
    const { data } = await deliveries.listForApp(app.appId, { from: today, to: today, limit: 200 });
    const attempts = data.filter((d) => d.taskId === taskId).sort((a, b) => a.attempt - b.attempt);
    expect(attempts.map((d) => [d.attempt, d.outcome, d.httpStatus])).toEqual([
      [1, 'retry', 500],
      [2, 'retry', 500],
      [3, 'delivered', 200],
    ]);
  });

  it('stops after the last scheduled attempt', async () => {
    receiver.answer(503, 503, 503, 503, 503);
    const taskId = (await embed(app.apiKey, 'always down')).headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(taskId).length === 4, 'four attempts');
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.delivered(taskId)).toHaveLength(4);
  });

  it('disables the callback when the receiver answers 410 Gone', async () => {
    const gone = await createApplication(api, 'gone', { callbackUrl: receiver.url });
    receiver.answer(410);
    const first = (await embed(gone.apiKey, 'first')).headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(first).length === 1, 'the 410 delivery');
    const applications = api.app.get(ApplicationsRepository);
    await waitUntil(
      async () => Boolean((await applications.findById(gone.appId))?.callbackDisabledAt),
      'the callback to be disabled',
    );
    const second = (await embed(gone.apiKey, 'second')).headers.get('x-task-id')!;
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.delivered(second)).toHaveLength(0);
    expect(receiver.delivered(first)).toHaveLength(1);
  });

  it('refuses a callback URL pointing at 127.0.0.1 unless the development flag allows it', async () => {
    const create = async (url: string, name: string, callback_url: string) => {
      const console = consoleClient(url);
      const user = await console.register(`${name}@example.com`);
      return console.call('POST', '/applications', user, { name, callback_url });
    };
    const refused = await create(api.url, 'loopback', 'http://127.0.0.1:9/hooks');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'InvalidParameter', param: 'callback_url' });
    const metadata = await create(api.url, 'metadata', 'http://169.254.169.254/latest');
    expect([metadata.status, metadata.body.error.code]).toEqual([400, 'InvalidParameter']);

    const devApi = await startApi(testEnv({ OUTBOUND_ALLOW_PRIVATE: 'true' }));
    try {
      const created = await create(devApi.url, 'dev', 'http://127.0.0.1:9/hooks');
      expect([created.status, created.body.callback_url]).toEqual([201, 'http://127.0.0.1:9/hooks']);
    } finally {
      await devApi.close();
    }
  });

  it('lists delivery attempts in the console and redelivers one with the same webhook id', async () => {
    const console = consoleClient(api.url);
    const user = await console.register('hooks@example.com');
    const created = await console.call('POST', '/applications', user, {
      name: 'console hooks',
      callback_url: receiver.url,
    });
    expect(created.status).toBe(201);
    const refused = await console.call('PATCH', `/applications/${created.body.id}`, user, {
      callback_url: 'http://127.0.0.1:9/x',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('callback_url');

    const taskId = (await embed(created.body.credentials.api_key, 'console')).headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(taskId).length === 1, 'the first delivery');
    const listed = await waitFor(
      () => console.call('GET', `/applications/${created.body.id}/webhooks`, user),
      (answer) => answer.body.data.length === 1,
      'the recorded attempt',
    );
    expect(listed.body.data[0]).toMatchObject({
      task_id: taskId,
      event: 'task.succeeded',
      outcome: 'delivered',
      http_status: 200,
      attempt: 1,
      redelivery: false,
    });

    const again = await console.call(
      'POST',
      `/applications/${created.body.id}/webhooks/${listed.body.data[0].id}/redeliver`,
      user,
    );
    expect(again.status).toBe(202);
    await waitUntil(() => receiver.delivered(taskId).length === 2, 'the redelivery');
    const [original, redelivered] = receiver.delivered(taskId);
    expect(redelivered.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(verifyWebhook(created.body.credentials.secret_key, redelivered.headers, redelivered.rawBody)).toBe(true);

    // A 410 disables the callback; saving the URL again turns it back on.
    receiver.answer(410);
    const goneTask = (await embed(created.body.credentials.api_key, 'gone')).headers.get('x-task-id')!;
    await waitUntil(
      async () =>
        (await console.call('GET', `/applications/${created.body.id}`, user)).body.callback_disabled_at !== null,
      'the callback to be disabled',
    );
    const saved = await console.call('PATCH', `/applications/${created.body.id}`, user, { callback_url: receiver.url });
    expect(saved.body.callback_disabled_at).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 150)); // the auth cache (AUTH_CACHE_TTL_MS) picks the change up
    const backTask = (await embed(created.body.credentials.api_key, 'back')).headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(backTask).length === 1, 'delivery after the URL was saved again');
    expect(receiver.delivered(goneTask)).toHaveLength(1);

    const other = await console.register('someone-else@example.com');
    expect((await console.call('GET', `/applications/${created.body.id}/webhooks`, other)).status).toBe(404);
  });

  it('delivers once, and shows the attempt, when the receiver answers 200 with U+0000 and a lone surrogate', async () => {
    const console = consoleClient(api.url);
    const user = await console.register('nul-answer@example.com');
    const created = await console.call('POST', '/applications', user, {
      name: 'nul answer',
      callback_url: receiver.url,
    });
    receiver.body = `accepted\u0000${'\ud800'} by ${'x'.repeat(300)}`;
    const taskId = (await embed(created.body.credentials.api_key, 'nul answer')).headers.get('x-task-id')!;
    await waitUntil(() => receiver.delivered(taskId).length === 1, 'the delivery');
    const listed = await waitFor(
      () => console.call('GET', `/applications/${created.body.id}/webhooks`, user),
      (answer) => answer.body.data.length > 0,
      'the recorded attempt',
    );
    // Three retries of the 200 ms schedule would have come by now.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(receiver.delivered(taskId)).toHaveLength(1);
    const again = await console.call('GET', `/applications/${created.body.id}/webhooks`, user);
    expect(again.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ task_id: taskId, outcome: 'delivered', http_status: 200, attempt: 1 });
    const snippet: string = listed.body.data[0].response;
    expect(snippet.startsWith('accepted\ufffd\ufffd by xxx')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(200);
  });
});
