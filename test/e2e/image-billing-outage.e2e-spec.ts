import { BillingRecordsRepository, TasksRepository } from '@gateway/db';
import { ImageStore } from '@gateway/imaging';
import { Queue } from 'bullmq';
import { join } from 'node:path';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import {
  createApplication,
  ROOT,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
  waitUntil,
} from '../helpers/gateway';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import { OwnDatabase } from '../helpers/own-database';

const DASHSCOPE_KEY = 'sk-upstream-dashscope';

/**
 * A caller pays for the images it was given, and only those (docs/contracts.md, "Billing"): an image stored before
 * its task failed as a whole is not billed. The bills come from the task's delivered outcome, with its record.
 */
describe('image billing when the database goes away mid-task', () => {
  let database: OwnDatabase;
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let imageEdits: Queue;

  beforeAll(async () => {
    [database, dashscope] = await Promise.all([
      OwnDatabase.start('billing-outage'),
      startDashScopeFake({ apiKey: DASHSCOPE_KEY, delayMs: 0 }),
    ]);
    const env = testEnv({
      MONGODB_URI: database.uri('billing_outage'),
      // One image model: DashScope first, then the local engine at its own (lower) price.
      MODELS_CONFIG: join(ROOT, 'test', 'fixtures', 'models-image-fallback.yaml'),
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: DASHSCOPE_KEY,
      UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS: 3000,
      AUTH_CACHE_TTL_MS: 600_000,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    imageEdits = new Queue('image-edit', {
      connection: { url: String(env.REDIS_URL) },
      prefix: String(env.REDIS_PREFIX),
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close(), imageEdits?.close()]);
    await Promise.all([dashscope?.close(), database?.close()]);
  });

  it('bills no image of a task that failed, though one was stored before the failure', async () => {
    const { apiKey, appId } = await createApplication(api, 'billing-outage');
    // The second generation never answers: its image is still being made when the database goes.
    dashscope.failCall(2, { hangAfterGeneration: true });
    const response = await fetch(`${api.url}/v1/images/edits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'x-async': 'enable' },
      body: JSON.stringify(editBody('x-image-edit-plus', [dataUri(await noisyPng(256, 256))], '换成海边', { n: 2 })),
    });
    expect(response.status).toBe(202);
    const taskId = ((await response.json()) as { task_id: string }).task_id;

    const store = api.app.get(ImageStore);
    const fileOf = (index: number) => `${taskId.replace(/^task_/, 'img_')}_${index}`;
    await waitUntil(
      async () => (await store.imageMetadata(fileOf(0))) !== null || (await store.imageMetadata(fileOf(1))) !== null,
      'the first image stored',
    );
    await database.kill();
    // Every attempt of the job fails on the database (storing the other image, or finding the stored one).
    await waitUntil(
      async () => (await (await imageEdits.getJob(taskId))?.isFailed()) === true,
      'the job to fail on its last attempt',
      90_000,
    );
    await database.restart();

    const record = await waitFor(
      () => api.app.get(TasksRepository).findForApp(taskId, appId),
      (found) => found !== null && (found.status === 'succeeded' || found.status === 'failed'),
      'the task record',
      60_000,
    );
    expect(record).toMatchObject({ status: 'failed', error: { code: 'InternalError' }, costNanos: 0 });
    expect(await api.app.get(BillingRecordsRepository).listForTask(taskId, appId)).toEqual([]);
  }, 150_000);
});
