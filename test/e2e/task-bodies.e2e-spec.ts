import { TaskBodiesRepository, TasksRepository, utcHour } from '@gateway/db';
import { MaintenancePass } from '../../apps/worker/src/tasks/maintenance-pass.service';
import { OpenAiFake } from '../fakes/openai-fake';
import { consoleClient, ConsoleUser } from '../helpers/console';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import { postJson, RunningApi, RunningWorker, startApi, startWorker, testEnv, waitFor } from '../helpers/gateway';

const DAY_MS = 86_400_000;

/**
 * Request and response bodies kept for an application that opted in (`log_bodies`), through the real api, worker,
 * Redis and FerretDB: readable by the owner only, never with image bytes, cut at the cap, and gone after the
 * retention the owner chose.
 */
describe('kept request and response bodies', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: RunningWorker;
  let owner: ConsoleUser;
  let stranger: ConsoleUser;
  const client = () => consoleClient(api.url);

  beforeAll(async () => {
    await upstream.start();
    // No scheduled maintenance pass but the one at start: the last test runs its own.
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
      AUTH_CACHE_TTL_MS: 100,
      MAINTENANCE_INTERVAL_MS: 3_600_000,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    owner = await client().register('owner@example.com');
    stranger = await client().register('stranger@example.com');
  }, 120_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  async function createApp(settings: Record<string, unknown>) {
    const created = await client().call('POST', '/applications', owner, { name: 'Bodies', ...settings });
    expect(created.status).toBe(201);
    return { appId: created.body.id as string, apiKey: created.body.credentials.api_key as string, view: created.body };
  }

  const bodiesOf = (appId: string, taskId: string, user = owner) =>
    client().call('GET', `/applications/${appId}/tasks/${taskId}/bodies`, user);

  /** The bodies once the worker has written them (after the answer, in its next batch). */
  const keptBodies = (appId: string, taskId: string) =>
    waitFor(
      () => bodiesOf(appId, taskId),
      (answer) => answer.status === 200,
      `the bodies of ${taskId}`,
    );

  it('are off by default with a 7-day retention, and refuses settings outside the rules with the field named', async () => {
    const { appId, view } = await createApp({});
    expect(view).toMatchObject({ log_bodies: false, body_retention_days: 7 });
    for (const [field, value, message] of [
      ['log_bodies', 'yes', 'log_bodies must be true or false'],
      ['body_retention_days', 0, 'body_retention_days must be 1 or more'],
      ['body_retention_days', 31, 'body_retention_days must be at most 30'],
      ['body_retention_days', 2.5, 'body_retention_days must be a whole number'],
      ['body_retention_days', null, 'body_retention_days must be a whole number'],
    ] as const) {
      const refused = await client().call('PATCH', `/applications/${appId}`, owner, { [field]: value });
      expect({ field, status: refused.status, error: refused.body.error }).toMatchObject({
        field,
        status: 400,
        error: { code: 'InvalidParameter', param: field, message },
      });
    }
    const saved = await client().call('PATCH', `/applications/${appId}`, owner, {
      log_bodies: true,
      body_retention_days: 30,
    });
    expect(saved.body).toMatchObject({ log_bodies: true, body_retention_days: 30 });
  });

  it("keeps an opted-in application's embeddings and chat bodies for its owner, for the days it chose", async () => {
    const { appId, apiKey } = await createApp({ log_bodies: true, body_retention_days: 3 });
    const embedded = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: ['kept text'], dimensions: 64 },
      apiKey,
    );
    expect(embedded.status).toBe(200);
    const chatted = await postJson(
      `${api.url}/v1/chat/completions`,
      { model: 'x-chat', messages: [{ role: 'user', content: 'what is kept?' }] },
      apiKey,
    );
    expect(chatted.status).toBe(200);

    const embeddings = (await keptBodies(appId, embedded.headers.get('x-task-id')!)).body;
    expect(JSON.parse(embeddings.request.body)).toMatchObject({
      model: 'text-embedding-v4',
      input: ['kept text'],
      dimensions: 64,
    });
    expect(JSON.parse(embeddings.response.body)).toEqual(embedded.body);
    expect(embeddings.request.truncated).toBe(false);
    // The retention the application chose, from when the task finished.
    expect(Date.parse(embeddings.expires_at) - Date.parse(embeddings.created_at)).toBe(3 * DAY_MS);

    const chat = (await keptBodies(appId, chatted.headers.get('x-task-id')!)).body;
    expect(JSON.parse(chat.request.body)).toMatchObject({
      model: 'x-chat',
      messages: [{ role: 'user', content: 'what is kept?' }],
    });
    expect(JSON.parse(chat.response.body)).toEqual(chatted.body);

    // Another account, and a made-up task, read as absent.
    const foreign = await bodiesOf(appId, chat.task_id, stranger);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'NotFound', param: 'id' });
    expect((await bodiesOf(appId, 'task_doesnotexist')).status).toBe(404);
  });

  it('keeps a Responses call as the request its upstream is sent, or its chat translation, under the public model', async () => {
    const { appId, apiKey } = await createApp({ log_bodies: true });
    for (const model of ['x-chat-responses', 'x-chat']) {
      const answered = await postJson(`${api.url}/v1/responses`, { model, input: 'hello responses' }, apiKey);
      expect(answered.status).toBe(200);
      const kept = (await keptBodies(appId, answered.headers.get('x-task-id')!)).body;
      const request = JSON.parse(kept.request.body);
      expect({ model: request.model, asked: JSON.stringify(request) }).toEqual({
        model,
        asked: expect.stringContaining('hello responses'),
      });
      expect(JSON.parse(kept.response.body)).toEqual(answered.body);
    }
  });

  it('keeps nothing for an application that did not opt in', async () => {
    const quiet = await createApp({});
    const loud = await createApp({ log_bodies: true });
    const answered = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'not kept' },
      quiet.apiKey,
    );
    expect(answered.status).toBe(200);
    const taskId = answered.headers.get('x-task-id')!;
    // A call of the opted-in application after it, through the same worker: once its bodies are kept, the first
    // call's would have been too.
    const later = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'kept' },
      loud.apiKey,
    );
    await keptBodies(loud.appId, later.headers.get('x-task-id')!);
    const absent = await bodiesOf(quiet.appId, taskId);
    expect(absent.status).toBe(404);
    expect(absent.body.error).toMatchObject({ code: 'NotFound', param: 'task_id' });
    expect(absent.body.error.message).toContain('log_bodies is off');
    expect(await api.app.get(TaskBodiesRepository).findForApp(taskId, quiet.appId)).toBeNull();
  });

  it("keeps an image edit's request without the image's bytes, only their size", async () => {
    const { appId, apiKey } = await createApp({ log_bodies: true });
    const image = dataUri(await noisyPng(64, 48));
    const base64 = image.slice(image.indexOf(',') + 1);
    const edited = await postJson(
      `${api.url}/v1/images/edits`,
      editBody('x-image-edit', [image], 'make it blue', { watermark: false }),
      apiKey,
    );
    expect(edited.status).toBe(200);
    const kept = (await keptBodies(appId, edited.headers.get('x-task-id')!)).body;
    expect(kept.request.body).not.toContain(base64.slice(0, 64));
    expect(kept.request.body).not.toContain('base64,');
    const request = JSON.parse(kept.request.body);
    expect(request).toMatchObject({ model: 'x-image-edit', parameters: { n: 1, watermark: false } });
    expect(request.input.messages[0].content).toEqual([
      { image: expect.stringMatching(/^\[image not kept: [\d,]+ bytes\]$/) },
      { text: 'make it blue' },
    ]);
    expect(JSON.parse(kept.response.body)).toEqual(edited.body);
  });

  it('cuts a body over 65,536 characters and says so', async () => {
    const { appId, apiKey } = await createApp({ log_bodies: true });
    const inputs = Array.from({ length: 20 }, (_, i) => `passage ${i} `.padEnd(4_000, 'lorem ipsum '));
    const answered = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: inputs }, apiKey);
    expect(answered.status).toBe(200);
    const kept = (await keptBodies(appId, answered.headers.get('x-task-id')!)).body;
    expect(kept.request.truncated).toBe(true);
    expect(kept.request.body.length).toBe(65_536);
    expect(kept.request.chars).toBeGreaterThan(80_000);
    expect(kept.request.body.startsWith('{"model":"text-embedding-v4","input":["passage 0 lorem ipsum')).toBe(true);
  });

  it('drops bodies that cannot be written, and the task keeps its answer and its record', async () => {
    const { appId, apiKey } = await createApp({ log_bodies: true });
    const insert = jest
      .spyOn(worker.app.get(TaskBodiesRepository), 'insertEach')
      .mockRejectedValueOnce(new Error('the database refused the bodies'));
    try {
      const answered = await postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'dropped' },
        apiKey,
      );
      expect(answered.status).toBe(200);
      const taskId = answered.headers.get('x-task-id')!;
      await waitFor(
        () => insert.mock.results.length,
        (tried) => tried > 0,
        'the write of the bodies',
      );
      await expect(insert.mock.results[0].value).rejects.toThrow('refused');
      const record = await waitFor(
        () => api.app.get(TasksRepository).findForApp(taskId, appId),
        (found) => found !== null,
        'the task record',
      );
      expect(record).toMatchObject({ status: 'succeeded' });
      expect((await bodiesOf(appId, taskId)).status).toBe(404);
    } finally {
      insert.mockRestore();
    }
  });

  it('hides bodies past their retention at once, and the maintenance pass deletes them', async () => {
    const { appId } = await createApp({ log_bodies: true });
    const bodies = api.app.get(TaskBodiesRepository);
    const side = { text: '{}', chars: 2, truncated: false };
    const stored = (taskId: string, expiresAt: Date) => ({
      _id: taskId,
      appId,
      request: side,
      response: side,
      createdAt: new Date(expiresAt.getTime() - DAY_MS),
      expiresAt,
      expiresHour: utcHour(expiresAt),
    });
    // Expired just now, in the hour under way: no pass has finished that hour, and a pass deletes it once it is past.
    const expired = new Date(Date.now() - 1);
    const current = new Date(Date.now() + DAY_MS);
    await bodies.insertEach([stored('task_bodiesexpired', expired), stored('task_bodiescurrent', current)]);

    expect((await bodiesOf(appId, 'task_bodiesexpired')).status).toBe(404);
    expect((await bodiesOf(appId, 'task_bodiescurrent')).status).toBe(200);

    // The pass as it runs two hours from now, when the hour of the expiry is wholly past.
    const deleted = await worker.app.get(MaintenancePass).run(Date.now() + 2 * 3_600_000);
    expect(deleted.bodies).toBeGreaterThanOrEqual(1);
    // Gone from the collection, not only hidden: read past the expiry check.
    expect(await bodies.findForApp('task_bodiesexpired', appId, new Date(0))).toBeNull();
    expect(await bodies.findForApp('task_bodiescurrent', appId)).not.toBeNull();
  });
});
