import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import {
  billsOf,
  createApplication,
  getJson,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

const IMAGE_MODEL = 'x-image-edit-plus-2025-10-30';

/** docs/architecture.md: `X-Async: enable` and `Idempotency-Key` on POST /v1/*, through two api instances. */
describe('async tasks and Idempotency-Key', () => {
  const openai = new OpenAiFake();
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let otherApi: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let appId: string;
  let otherAppKey: string;
  let image: string;

  beforeAll(async () => {
    [dashscope] = await Promise.all([startDashScopeFake(), openai.start()]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: openai.baseUrl,
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: 'k',
    });
    [api, otherApi, worker] = await Promise.all([startApi(env), startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    ({ apiKey: otherAppKey } = await createApplication(api, 'someone-else'));
    image = dataUri(await noisyPng(120, 80));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), otherApi?.close(), worker?.close()]);
    await Promise.all([openai.stop(), dashscope?.close()]);
  });

  beforeEach(() => {
    openai.reset();
    openai.setDelay(0);
    dashscope.reset();
    dashscope.setDelay(0);
  });

  async function post(path: string, body: unknown, headers: Record<string, string> = {}, base = api.url, key = apiKey) {
    const response = await checkedFetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  }

  function settled(taskId: string) {
    return waitFor(
      async () => (await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey)).body,
      (view) => view.status === 'succeeded' || view.status === 'failed',
      `task ${taskId} to finish`,
    );
  }

  describe('X-Async: enable', () => {
    it('answers 202 with the task id at once, and the task reaches succeeded with the body the sync call returns', async () => {
      const body = { model: 'text-embedding-v4', input: ['async one', 'async two'], dimensions: 64 };
      // The upstream takes 2 s: the 202 comes, and the task reads queued or running, long before it answers.
      openai.setDelay(2000);
      const accepted = await post('/v1/embeddings', body, { 'x-async': 'enable' });
      expect(accepted.status).toBe(202);
      expect(accepted.body).toEqual({ task_id: expect.stringMatching(/^task_/), status: 'queued' });
      expect(accepted.headers.get('x-task-id')).toBe(accepted.body.task_id);

      const early = await getJson(`${api.url}/v1/tasks/${accepted.body.task_id}`, apiKey);
      expect(['queued', 'running']).toContain(early.body.status);
      const done = await settled(accepted.body.task_id);
      openai.setDelay(0);
      const sync = await post('/v1/embeddings', body);
      expect(done).toMatchObject({
        status: 'succeeded',
        endpoint: 'embeddings',
        model: 'text-embedding-v4',
        error: null,
      });
      expect(done.result).toEqual(sync.body);
      expect(done.result.data[1].embedding).toEqual(fakeVector('async two', 64));
      expect(done.created_at).toBeLessThanOrEqual(done.started_at);
      expect(done.started_at).toBeLessThanOrEqual(done.finished_at);
    });

    it('shows a failed async task with the error envelope the sync call would have answered', async () => {
      const accepted = await post(
        '/v1/images/edits',
        editBody('x-image-edit-plus', ['http://127.0.0.1:9/secret.png'], 'invert'),
        { 'x-async': 'enable' },
      );
      expect(accepted.status).toBe(202);
      const done = await settled(accepted.body.task_id);
      expect(done.status).toBe('failed');
      expect(done.result).toBeNull();
      expect(done.error).toMatchObject({
        code: 'InvalidImage',
        param: 'input.messages[0].content[0].image',
        type: 'invalid_request_error',
        status: 400,
      });
    });

    it("answers 404 for another application's task", async () => {
      const accepted = await post(
        '/v1/embeddings',
        { model: 'text-embedding-v4', input: 'mine', dimensions: 64 },
        { 'x-async': 'enable' },
      );
      const theirs = await getJson(`${api.url}/v1/tasks/${accepted.body.task_id}`, otherAppKey);
      expect(theirs.status).toBe(404);
      expect(theirs.body.error.code).toBe('NotFound');
    });

    it('refuses an X-Async value it does not know', async () => {
      const response = await post('/v1/embeddings', { model: 'text-embedding-v4', input: 'x' }, { 'x-async': 'yes' });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'InvalidParameter', param: 'X-Async' });
    });
  });

  describe('Idempotency-Key', () => {
    const edit = () => editBody(IMAGE_MODEL, [image], '黑白', { seed: 5 });

    it('runs two concurrent identical requests once, on two api instances: one upstream call, one bill, identical answers', async () => {
      dashscope.setDelay(400);
      const key = `concurrent-${Date.now()}`;
      const [first, second] = await Promise.all([
        post('/v1/images/edits', edit(), { 'idempotency-key': key }),
        new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
          post('/v1/images/edits', edit(), { 'idempotency-key': key }, otherApi.url),
        ),
      ]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.text).toBe(first.text);
      expect(second.headers.get('x-task-id')).toBe(first.headers.get('x-task-id'));
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(dashscope.calls).toHaveLength(1);
      expect(await billsOf(api, first.headers.get('x-task-id')!, appId)).toHaveLength(1);
    });

    it('replays the stored answer a second later without calling the upstream', async () => {
      const key = `later-${Date.now()}`;
      const first = await post('/v1/images/edits', edit(), { 'idempotency-key': key });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const replay = await post('/v1/images/edits', edit(), { 'idempotency-key': key });
      expect(replay.status).toBe(200);
      expect(replay.text).toBe(first.text);
      expect(dashscope.calls).toHaveLength(1);
      expect(await billsOf(api, first.headers.get('x-task-id')!, appId)).toHaveLength(1);
    });

    it('replays an error with its status', async () => {
      dashscope.failWhen(() => true, { status: 400, code: 'DataInspectionFailed' });
      const key = `error-${Date.now()}`;
      const first = await post('/v1/images/edits', edit(), { 'idempotency-key': key });
      const replay = await post('/v1/images/edits', edit(), { 'idempotency-key': key });
      expect(first.status).toBe(400);
      expect(replay.status).toBe(400);
      expect(replay.body.error).toEqual(first.body.error);
      expect(dashscope.calls).toHaveLength(1);
    });

    it('refuses the same key with a different body', async () => {
      const key = `reused-${Date.now()}`;
      await post(
        '/v1/embeddings',
        { model: 'text-embedding-v4', input: 'one', dimensions: 64 },
        { 'idempotency-key': key },
      );
      const reused = await post(
        '/v1/embeddings',
        { model: 'text-embedding-v4', input: 'two', dimensions: 64 },
        { 'idempotency-key': key },
      );
      expect(reused.status).toBe(400);
      expect(reused.body.error).toMatchObject({ code: 'IdempotencyKeyReused', param: 'Idempotency-Key' });
    });

    it('scopes keys to the application', async () => {
      const key = `shared-${Date.now()}`;
      const mine = await post(
        '/v1/embeddings',
        { model: 'text-embedding-v4', input: 'mine', dimensions: 64 },
        { 'idempotency-key': key },
      );
      const theirs = await post(
        '/v1/embeddings',
        { model: 'text-embedding-v4', input: 'theirs', dimensions: 64 },
        { 'idempotency-key': key },
        api.url,
        otherAppKey,
      );
      expect([mine.status, theirs.status]).toEqual([200, 200]);
      expect(theirs.headers.get('x-task-id')).not.toBe(mine.headers.get('x-task-id'));
    });

    it('replays an async request as its 202 with the same task id', async () => {
      const key = `async-${Date.now()}`;
      const body = { model: 'text-embedding-v4', input: 'async replay', dimensions: 64 };
      const first = await post('/v1/embeddings', body, { 'idempotency-key': key, 'x-async': 'enable' });
      const replay = await post('/v1/embeddings', body, { 'idempotency-key': key, 'x-async': 'enable' });
      expect([first.status, replay.status]).toEqual([202, 202]);
      expect(replay.body.task_id).toBe(first.body.task_id);
      await settled(first.body.task_id);
      expect(openai.calls.filter((call) => call.path === '/v1/embeddings')).toHaveLength(1);
    });

    it('lets a retry run when the first request was refused by a limit before it ran', async () => {
      const { apiKey: limitedKey } = await createApplication(api, 'one-at-a-time', { concurrencyLimit: 1 });
      const body = { model: 'text-embedding-v4', input: 'limited', dimensions: 64 };
      openai.setDelay(500);
      const busy = post('/v1/embeddings', { ...body, input: 'holding the only slot' }, {}, api.url, limitedKey);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const key = `refused-${Date.now()}`;
      const refused = await post('/v1/embeddings', body, { 'idempotency-key': key }, api.url, limitedKey);
      expect(refused.status).toBe(429);
      expect((await busy).status).toBe(200);
      const retry = await post('/v1/embeddings', body, { 'idempotency-key': key }, api.url, limitedKey);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    });

    it('refuses a malformed key', async () => {
      const response = await post(
        '/v1/embeddings',
        { model: 'text-embedding-v4', input: 'x' },
        { 'idempotency-key': 'has space' },
      );
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('Idempotency-Key');
    });
  });
});
