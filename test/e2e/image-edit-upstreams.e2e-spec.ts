import { DashScopeFake, startDashScopeFake } from '../fakes/dashscope-fake';
import { OpenAiFake } from '../fakes/openai-fake';
import { dataUri, download, editBody, noisyPng, pixelsOf, solidPng } from '../helpers/images';
import {
  billsOf,
  createApplication,
  getJson,
  postJson,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
} from '../helpers/gateway';

const DASHSCOPE_MODEL = 'x-image-edit-plus-2025-10-30';
const OPENAI_MODEL = 'openai-image-edit';

/** Upstream image routes against fake DashScope and OpenAI servers, and per-image billing (docs/contracts.md, docs/architecture.md). */
describe('POST /v1/images/edits through upstream providers', () => {
  let dashscope: DashScopeFake;
  const openai = new OpenAiFake({ apiKey: 'sk-upstream-openai' });
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let appId: string;
  let image: string;

  beforeAll(async () => {
    [dashscope] = await Promise.all([startDashScopeFake({ apiKey: 'sk-upstream-dashscope' }), openai.start()]);
    const env = testEnv({
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: 'sk-upstream-dashscope',
      UPSTREAM_PRIMARY_BASE_URL: openai.baseUrl,
      UPSTREAM_PRIMARY_API_KEY: 'sk-upstream-openai',
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    image = dataUri(await noisyPng(300, 200));
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([dashscope?.close(), openai.stop()]);
  });

  beforeEach(() => {
    dashscope.reset();
    openai.reset();
  });

  const edit = (model: string, parameters?: Record<string, unknown>, images = [image]) =>
    postJson(`${api.url}/v1/images/edits`, editBody(model, images, '把背景换成海边', parameters), apiKey);
  const recordsOf = (response: { headers: Headers }) => billsOf(api, response.headers.get('x-task-id')!, appId);

  it('calls DashScope with the upstream model id and its native request shape', async () => {
    const response = await edit(DASHSCOPE_MODEL, {
      size: '1024*768',
      seed: 42,
      negative_prompt: '模糊',
      prompt_extend: false,
      watermark: true,
    });
    expect(response.status).toBe(200);
    expect(dashscope.calls).toHaveLength(1);
    expect(dashscope.calls[0]).toMatchObject({
      model: 'qwen-image-edit-plus-2025-10-30',
      text: '把背景换成海边',
      imageCount: 1,
      parameters: { n: 1, size: '1024*768', seed: 42, negative_prompt: '模糊', prompt_extend: false, watermark: true },
    });
    const file = await download(response.body.data[0].url);
    const pixels = await pixelsOf(file.bytes);
    expect([pixels.width, pixels.height]).toEqual([1024, 768]);
  });

  it('bills n = 4 as four records at the unit price, one upstream call per image with its own seed', async () => {
    const response = await edit(DASHSCOPE_MODEL, { n: 4, seed: 100 });
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(4);
    expect(dashscope.calls.map((call) => call.parameters.seed).sort()).toEqual([100, 101, 102, 103]);
    const records = await recordsOf(response);
    expect(records.map((r) => r.index)).toEqual([0, 1, 2, 3]);
    expect(records.every((r) => r.unitPriceNanos === 200_000_000 && r.model === DASHSCOPE_MODEL)).toBe(true);
    const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
    expect(task.body.usage.images).toBe(4);
    expect(task.body.cost).toBe(0.8);
  });

  it('delivers and bills the other three when the upstream refuses image 3 of 4', async () => {
    dashscope.failWhen((call) => call.parameters.seed === 202, { status: 400, code: 'DataInspectionFailed' });
    const response = await edit(DASHSCOPE_MODEL, { n: 4, seed: 200 });
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(3);
    expect(response.body.usage).toEqual({ image_count: 3, failed_count: 1 });
    const records = await recordsOf(response);
    expect(records.map((r) => r.index)).toEqual([0, 1, 3]);
    const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
    expect(task.body.cost).toBe(0.6);
  });

  it('costs nothing when every image failed, and answers the upstream refusal as a 400', async () => {
    dashscope.failWhen(() => true, { status: 400, code: 'DataInspectionFailed' });
    const response = await edit(DASHSCOPE_MODEL, { n: 2 });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('ContentRejected');
    expect(response.body.error.message).toContain('content inspection refused the input');
    expect(await recordsOf(response)).toEqual([]);
    const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
    expect(task.body).toMatchObject({ status: 'failed', cost: 0 });
  });

  it('retries a DashScope 429 and a 500, then succeeds', async () => {
    dashscope.failNext({ status: 429, times: 1 });
    dashscope.failNext({ status: 500, times: 1 });
    const response = await edit(DASHSCOPE_MODEL);
    expect(response.status).toBe(200);
    expect(dashscope.calls.length).toBe(3);
    expect(await recordsOf(response)).toHaveLength(1);
  });

  it('answers 500 UpstreamError without the upstream key when DashScope keeps failing', async () => {
    dashscope.failWhen(() => true, { status: 503 });
    const response = await edit(DASHSCOPE_MODEL);
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('UpstreamError');
    expect(JSON.stringify(response.body)).not.toContain('sk-upstream');
  });

  it('sends an openai-compatible upstream a multipart /images/edits, one image part per input', async () => {
    const second = dataUri(await solidPng(120, 80, [0, 128, 255]));
    const response = await edit(OPENAI_MODEL, { size: '768*512' }, [image, second]);
    expect(response.status).toBe(200);
    const call = openai.calls.find((c) => c.path === '/v1/images/edits')!;
    expect(call.body).toMatchObject({ model: 'gpt-image-1', prompt: expect.stringContaining('海边'), size: '768x512' });
    expect(call.body.images).toHaveLength(2);
    const pixels = await pixelsOf((await download(response.body.data[0].url)).bytes);
    expect([pixels.width, pixels.height]).toEqual([768, 512]);
  });

  it('retries an openai-compatible 429 and maps its 400 to ours', async () => {
    openai.failNext({ status: 429, times: 1 });
    expect((await edit(OPENAI_MODEL)).status).toBe(200);
    openai.failNext({ status: 400, times: 5 });
    const refused = await edit(OPENAI_MODEL);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('InvalidParameter');
  });
});
