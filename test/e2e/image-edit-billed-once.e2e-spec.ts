import { BillingRecordsRepository, TasksRepository } from '@gateway/db';
import { join } from 'node:path';
import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { dataUri, editBody, noisyPng } from '../helpers/images';
import {
  createApplication,
  postJson,
  ROOT,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';

const DASHSCOPE_KEY = 'sk-upstream-dashscope';
const NANOS = 1_000_000_000;

/**
 * An upstream generation is billed by the upstream once made, whether or not its answer arrives: the gateway never
 * asks for it twice, holds a synchronous caller past the longest call it can make (so the caller has no reason to
 * retry), and bills the caller what served.
 */
describe('image edits: one generation, one bill', () => {
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let appId: string;
  let tasks: TasksRepository;
  let billing: BillingRecordsRepository;
  let image: string;

  beforeAll(async () => {
    dashscope = await startDashScopeFake({ apiKey: DASHSCOPE_KEY, delayMs: 0 });
    // The defaults scaled down a hundredfold: a 300 s generation deadline, 30 s per download try and a 300 s
    // synchronous wait, so the adapter's longest call (generation and three download tries) outlasts SYNC_TIMEOUT_MS.
    const env = testEnv({
      // One image model: DashScope first, then the local engine at its own (lower) price.
      MODELS_CONFIG: join(ROOT, 'test', 'fixtures', 'models-image-fallback.yaml'),
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: DASHSCOPE_KEY,
      UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS: 3000,
      UPSTREAM_IMAGE_DOWNLOAD_TIMEOUT_MS: 300,
      SYNC_TIMEOUT_MS: 3000,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    tasks = api.app.get(TasksRepository);
    billing = api.app.get(BillingRecordsRepository);
    image = dataUri(await noisyPng(512, 384));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await dashscope?.close();
  });

  beforeEach(() => {
    dashscope.reset();
    dashscope.setDelay(0);
    dashscope.options.downloadDelayMs = undefined;
  });

  const edit = () =>
    postJson(`${api.url}/v1/images/edits`, editBody('x-image-edit-plus', [image], '把背景换成海边'), apiKey);
  const recordOf = (taskId: string) =>
    waitFor(
      () => tasks.findForApp(taskId, appId),
      (record) => record !== null && record.status !== 'queued' && record.status !== 'running',
      'the task record',
    );

  it.each([504, 502])(
    'a %i without a DashScope code after the POST went out counts as generated: asked once, billed once at the price of what served',
    async (status) => {
      dashscope.failNext({ status, proxyErrorAfterGeneration: true });
      const response = await edit();
      expect(response.status).toBe(200);
      expect(dashscope.generations).toBe(1);
      expect(dashscope.calls.map((call) => call.status)).toEqual([status]);

      const taskId = response.headers.get('x-task-id')!;
      const record = await recordOf(taskId);
      expect(record?.provider).toBe('local');
      expect(record?.upstream).toEqual([
        expect.objectContaining({ route: 'dashscope:qwen-image-edit-plus', status, outcome: 'spent' }),
      ]);
      // The local engine's price, not the model's: the caller pays for the image it got, once.
      const bills = await billing.listForTask(taskId, appId);
      expect(bills.map((bill) => [bill.index, bill.unitPriceNanos])).toEqual([[0, 0.05 * NANOS]]);
      expect(record?.costNanos).toBe(0.05 * NANOS);
    },
  );

  it("bills DashScope's price when DashScope served", async () => {
    const response = await edit();
    expect(response.status).toBe(200);
    const taskId = response.headers.get('x-task-id')!;
    expect((await recordOf(taskId))?.provider).toBe('dashscope');
    const bills = await billing.listForTask(taskId, appId);
    expect(bills.map((bill) => bill.unitPriceNanos)).toEqual([0.2 * NANOS]);
  });

  it('holds a synchronous caller past SYNC_TIMEOUT_MS while the upstream call can still answer: 200, not 504', async () => {
    // 2.5 s to generate, then two downloads that hang past their 0.3 s deadline and one that is served: about 4 s
    // in all, longer than SYNC_TIMEOUT_MS (3 s) and within the adapter's longest call.
    dashscope.setDelay(2500);
    dashscope.failDownloads({ hang: true, times: 2 });
    const started = Date.now();
    const response = await edit();
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThan(3000);
    expect(dashscope.generations).toBe(1);
    expect(dashscope.downloadAttempts.map((attempt) => attempt.outcome)).toEqual(['hung', 'hung', 'served']);
    expect((await recordOf(response.headers.get('x-task-id')!))?.provider).toBe('dashscope');
  });
});
