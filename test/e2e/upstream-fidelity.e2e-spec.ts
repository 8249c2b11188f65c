import { TasksRepository } from '@gateway/db';
import { ChildProcess } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { DashScopeFake, GENERATION_PATH, startDashScopeFake } from '../fakes/dashscope-fake';
import { DASHSCOPE_IMAGE_LIMITS } from '../fakes/upstream-rules';
import { dataUri, download, editBody, noisyBmp, noisyJpeg, noisyPng } from '../helpers/images';
import {
  createApplication,
  getJson,
  postJson,
  ROOT,
  RunningApi,
  startApi,
  spawnWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';

const DASHSCOPE_KEY = 'sk-upstream-dashscope';
/** Calls spaced at least this far apart never exceed the 3 a second these tests give the upstream fake. */
/** The shipped catalog's max_rps 2 for x-image-edit-plus on DashScope. */
const ROUTE_PACE_MS = 500;

/**
 * The shipped catalog (config/models.yaml) against a DashScope fake as strict as the documentation
 * (test/fakes/upstream-rules.ts): per-model parameters, the error-code table, no second generation once one may
 * have been billed, inputs within the upstream's size limits, the prompt reported as sent, and per-route pacing.
 */
describe('DashScope image edits by the documented rules', () => {
  let dashscope: DashScopeFake;
  let api: RunningApi;
  let worker: ChildProcess;
  let apiKey: string;
  let appId: string;
  let tasks: TasksRepository;
  let image: string;
  // Plays an image host the operator opened to the gateway (OUTBOUND_ALLOW_CIDRS); the upstream, on the internet,
  // cannot reach it.
  let files: Server;
  const served = new Map<string, { type: string; body: Buffer }>();
  let filesUrl: string;

  beforeAll(async () => {
    files = createServer((request, response) => {
      const file = served.get(request.url ?? '');
      if (!file) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.2', resolve));
    filesUrl = `http://127.0.0.2:${(files.address() as AddressInfo).port}`;
    dashscope = await startDashScopeFake({ apiKey: DASHSCOPE_KEY });
    const env = testEnv({
      MODELS_CONFIG: join(ROOT, 'config', 'models.yaml'),
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.url,
      UPSTREAM_DASHSCOPE_API_KEY: DASHSCOPE_KEY,
      UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS: 3000,
      UPSTREAM_IMAGE_DOWNLOAD_TIMEOUT_MS: 500,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32',
    });
    // A worker process of its own: the call times the fake notes are then not held back by the worker's image
    // scaling on this process's event loop, which on a loaded machine bunched them closer than they were sent.
    worker = spawnWorker(env);
    api = await startApi(env);
    ({ apiKey, appId } = await createApplication(api));
    tasks = api.app.get(TasksRepository);
    image = dataUri(await noisyPng(300, 200));
  });

  afterAll(async () => {
    const exited = new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(0)));
    worker?.kill('SIGTERM');
    await Promise.all([api?.close(), exited]);
    await Promise.all([dashscope?.close(), new Promise((resolve) => files?.close(resolve))]);
  });

  beforeEach(() => {
    dashscope.reset();
    dashscope.options.rateLimitPerSecond = undefined;
  });

  const edit = (model: string, parameters?: Record<string, unknown>, images = [image], text = '把背景换成海边') =>
    postJson(`${api.url}/v1/images/edits`, editBody(model, images, text, parameters), apiKey);
  /** The task's stored record, once the worker has written it. */
  const recordOf = (response: { headers: Headers }) =>
    waitFor(
      () => tasks.findForApp(response.headers.get('x-task-id')!, appId),
      (record) => record !== null && record.status !== 'queued' && record.status !== 'running',
      'the task record',
    );

  describe('the strict fake', () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${dashscope.url}${GENERATION_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DASHSCOPE_KEY}`, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const request = (model: string, parameters: Record<string, unknown> = {}, input = inRange) => ({
      model,
      input: { messages: [{ role: 'user', content: [{ image: input }, { text: 'edit' }] }] },
      parameters,
    });
    let inRange: string;
    beforeAll(async () => {
      inRange = dataUri(await noisyPng(512, 384));
    });

    it('refuses an input with a side outside 384–3072 pixels', async () => {
      const { min, max } = DASHSCOPE_IMAGE_LIMITS.inputSides;
      for (const [width, height] of [
        [min - 1, 500],
        [500, max + 1],
      ]) {
        const refused = await post(request('qwen-image-edit-plus', {}, dataUri(await noisyPng(width, height))));
        expect([width, height, refused.status, refused.body.code]).toEqual([width, height, 400, 'InvalidParameter']);
      }
      const edge = await post(request('qwen-image-edit-plus', {}, dataUri(await noisyPng(min, max))));
      expect(edge.status).toBe(200);
    });

    it('refuses what the documentation says a model does not take', async () => {
      for (const [model, parameters] of [
        ['qwen-image-edit', { prompt_extend: false }],
        ['qwen-image-edit', { size: '1024*1024' }],
        ['qwen-image-edit', { n: 2 }],
        ['qwen-image-edit-plus', { n: 7 }],
        ['qwen-image-edit-plus', { size: '500*1024' }],
        ['qwen-image-edit-plus', { seed: 2147483648 }],
        ['qwen-image-edit-plus', { negative_prompt: 'x'.repeat(501) }],
        ['qwen-image-edit-plus', { quality: 'high' }],
      ] as const) {
        const refused = await post(request(model, parameters));
        expect([model, parameters, refused.status, refused.body.code]).toEqual([
          model,
          parameters,
          400,
          'InvalidParameter',
        ]);
      }
      expect((await post(request('qwen-image-edit'))).status).toBe(200);
    });

    it('answers the documented codes for the media type, body size, model and rate', async () => {
      const body = JSON.stringify(request('qwen-image-edit-plus'));
      expect(await post(body, { 'content-type': 'text/plain' })).toMatchObject({
        status: 415,
        body: { code: 'UnsupportedMediaType' },
      });
      const huge = `{"pad":"${'x'.repeat(DASHSCOPE_IMAGE_LIMITS.maxBodyBytes)}"}`;
      expect(await post(huge)).toMatchObject({ status: 413, body: { code: 'BadRequest.TooLarge' } });
      expect(await post(request('qwen-image-edit-pro'))).toMatchObject({
        status: 404,
        body: { code: 'ModelNotFound' },
      });
      dashscope.failNext({ status: 503 });
      expect(await post(body)).toMatchObject({ status: 503, body: { code: 'ModelUnavailable' } });
      dashscope.reset();
      dashscope.options.rateLimitPerSecond = 2;
      const burst = await Promise.all([1, 2, 3].map(() => post(body)));
      expect(burst.map((answer) => answer.body.code ?? answer.status).sort()).toEqual([
        200,
        200,
        'Throttling.RateQuota',
      ]);
    });

    it('answers only the documented fields, with the output size rounded to multiples of 16', async () => {
      const answer = await post(request('qwen-image-edit-plus', { size: '1000*700' }));
      expect(Object.keys(answer.body).sort()).toEqual(['output', 'request_id', 'usage']);
      expect(answer.body.usage).toEqual({ width: 1008, height: 704, image_count: 1 });
      expect(Object.keys(answer.body.output.choices[0].message.content[0])).toEqual(['image']);
    });
  });

  it('sends x-image-edit (qwen-image-edit) neither size nor prompt_extend', async () => {
    const response = await edit('x-image-edit');
    expect(response.status).toBe(200);
    expect(dashscope.calls).toHaveLength(1);
    expect(dashscope.calls[0]).toMatchObject({ model: 'qwen-image-edit', status: 200 });
    expect(Object.keys(dashscope.calls[0].parameters).sort()).toEqual(['n', 'seed', 'watermark']);
  });

  it('sends the plus family its size on the 16-pixel grid and prompt_extend', async () => {
    const response = await edit('x-image-edit-plus', { size: '1000*700', prompt_extend: false });
    expect(response.status).toBe(200);
    expect(dashscope.calls[0].parameters).toMatchObject({ size: '1008*704', prompt_extend: false });
    const file = await sharp((await download(response.body.data[0].url)).bytes).metadata();
    expect([file.width, file.height]).toEqual([1000, 700]);
  });

  describe('maps each documented error code', () => {
    it.each(['Arrearage', 'PrepaidBillOverdue', 'CommodityNotPurchased', 'AllocationQuota.FreeTierOnly'])(
      '%s: a route error, so the next route serves and this one is not asked again',
      async (code) => {
        dashscope.failWhen(() => true, { code });
        const response = await edit('x-image-edit-plus');
        expect(response.status).toBe(200);
        expect(dashscope.calls).toHaveLength(1);
        const record = await recordOf(response);
        expect(record?.provider).toBe('local');
        expect(record?.upstream).toEqual([
          expect.objectContaining({ route: 'dashscope:qwen-image-edit-plus-2025-12-15', outcome: 'route', code }),
        ]);
        expect(record?.upstream?.[0].requestId).toBe(dashscope.calls[0].requestId);
      },
    );

    it('DataInspectionFailed: a 400 that says content inspection refused it, without the upstream request id', async () => {
      dashscope.failWhen(() => true, { status: 400, code: 'DataInspectionFailed' });
      const response = await edit('x-image-edit-plus');
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('ContentRejected');
      expect(response.body.error.message).toMatch(/content inspection refused/);
      expect(JSON.stringify(response.body)).not.toContain(dashscope.calls[0].requestId);
      expect(dashscope.calls).toHaveLength(1);
      const record = await recordOf(response);
      expect(record?.upstream?.[0]).toMatchObject({ outcome: 'content', requestId: dashscope.calls[0].requestId });
    });

    it.each([
      [408, 'RequestTimeOut'],
      [503, 'ModelUnavailable'],
      [200, 'InternalError'],
    ])('%i %s: retried on the same route', async (status, code) => {
      dashscope.failNext({ status, code });
      const response = await edit('x-image-edit-plus');
      expect(response.status).toBe(200);
      expect(dashscope.calls.map((call) => call.status)).toEqual([status, 200]);
      const record = await recordOf(response);
      expect(record?.provider).toBe('dashscope');
      expect(record?.upstream?.map((attempt) => attempt.outcome)).toEqual(['retryable', 'ok']);
      expect(record?.upstream?.map((attempt) => attempt.requestId)).toEqual(
        dashscope.calls.map((call) => call.requestId),
      );
    });

    it.each([
      [413, 'BadRequest.TooLarge', /too large/i],
      [415, 'UnsupportedMediaType', /media type|content-type/i],
    ])('%i %s: a request error with a clear message', async (status, code, message) => {
      dashscope.failNext({ status, code });
      const response = await edit('x-image-edit-plus');
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('InvalidParameter');
      expect(response.body.error.message).toMatch(message);
      expect(dashscope.calls).toHaveLength(1);
    });
  });

  describe('generates an image at most once per route', () => {
    it('downloads a generated image again when its download times out: one generation', async () => {
      dashscope.failDownloads({ hang: true });
      const response = await edit('x-image-edit-plus');
      expect(response.status).toBe(200);
      expect(dashscope.generations).toBe(1);
      expect(dashscope.downloadAttempts.map((attempt) => attempt.outcome)).toEqual(['hung', 'served']);
      expect((await recordOf(response))?.provider).toBe('dashscope');
    });

    it('does not ask again after a generation that may have happened went unanswered', async () => {
      dashscope.failNext({ hangAfterGeneration: true });
      const response = await edit('x-image-edit-plus');
      expect(response.status).toBe(200);
      expect(dashscope.generations).toBe(1);
      expect(dashscope.calls).toHaveLength(1);
      const record = await recordOf(response);
      expect(record?.provider).toBe('local');
      expect(record?.upstream).toEqual([
        expect.objectContaining({ outcome: 'spent', route: 'dashscope:qwen-image-edit-plus-2025-12-15' }),
      ]);
    });
  });

  describe('inputs within the upstream limits', () => {
    it('sends a 12 MB BMP given by URL re-encoded under 7.5 MB, so its base64 stays under 10 MB', async () => {
      const bmp = noisyBmp(2000, 2000);
      expect(bmp.length).toBeGreaterThan(12_000_000);
      served.set('/photo.bmp', { type: 'image/bmp', body: bmp });
      const response = await edit('x-image-edit-plus', undefined, [`${filesUrl}/photo.bmp`]);
      expect(response.status).toBe(200);
      // Served by DashScope, not by the local fallback after a failed call.
      expect((await recordOf(response))?.upstream).toEqual([expect.objectContaining({ outcome: 'ok' })]);
      const [received] = dashscope.calls[0].images;
      expect(received).toMatchObject({ source: 'data', width: 2000, height: 2000 });
      expect(received.bytes).toBeLessThanOrEqual((DASHSCOPE_IMAGE_LIMITS.maxImageBytes * 3) / 4);
      expect(dashscope.calls[0].status).toBe(200);
    });

    it('sends an image URL it reached only through OUTBOUND_ALLOW_CIDRS as bytes, scaled up to 384', async () => {
      served.set('/small.png', { type: 'image/png', body: await noisyPng(320, 240) });
      const response = await edit('x-image-edit-plus', undefined, [`${filesUrl}/small.png`]);
      expect(response.status).toBe(200);
      // The upstream, on the internet, could not fetch from an address only the operator's allow-list opens.
      expect(dashscope.calls[0].images).toEqual([expect.objectContaining({ source: 'data', width: 512, height: 384 })]);
      expect(dashscope.calls[0].status).toBe(200);
    });
  });

  it('reports as revised_prompt the prompt sent, cut where the upstream would cut it', async () => {
    const long = '把背景换成海边，'.repeat(120);
    const response = await edit('x-image-edit-plus', undefined, [image], long);
    expect(response.status).toBe(200);
    const sent = dashscope.calls[0].text!;
    expect([...sent]).toHaveLength(DASHSCOPE_IMAGE_LIMITS.maxTextChars);
    expect(response.body.data[0].revised_prompt).toBe(sent);
  });

  it('letterboxes an upstream-watermarked output rather than crop its mark away', async () => {
    const response = await edit('x-image-edit-plus', { size: '1000*700', watermark: true });
    expect(response.status).toBe(200);
    expect(dashscope.calls[0].parameters).toMatchObject({ size: '1008*704', watermark: true });
    const { data, info } = await sharp((await download(response.body.data[0].url)).bytes)
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([1000, 700]);
    // 1008×704 scaled into 1000×700 is 1000×698: a transparent row above and below; a crop would leave none.
    const alphaAt = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
    expect([alphaAt(500, 0), alphaAt(500, 699)]).toEqual([0, 0]);
    expect(alphaAt(500, 350)).toBe(255);
  });

  it('paces an n = 6 burst under max_rps, so the upstream throttles none of it', async () => {
    // The shipped catalog says max_rps 2 for this route; the upstream allows 3 per second.
    dashscope.options.rateLimitPerSecond = 3;
    const response = await edit('x-image-edit-plus', { n: 6, seed: 7 });
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(6);
    expect(dashscope.calls.map((call) => call.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // The fake judges by the upstream's own rule (at most 3 starts in any second): none was throttled above. The
    // route's pace (500 ms) keeps a margin under it that a loaded machine's scheduling eats into, not past.
    const record = await recordOf(response);
    expect(record?.provider).toBe('dashscope');
    expect(record?.upstream?.map((attempt) => attempt.image).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
    expect(JSON.stringify(task.body)).not.toContain(dashscope.calls[0].requestId);
  });

  it('scales the inputs once for the n calls, before the first turn, so each call reaches the upstream at its pace', async () => {
    // Three photo-sized inputs over 3072 px: each call sends them scaled, which takes a few hundred ms. Made after the
    // first turn, that work would delay the first call only, and the second would follow it by far less than the
    // route's 500 ms. Gaps are measured from each request's headers, so body transfer does not count.
    const large = await Promise.all(
      [1, 2, 3].map(async (seed) => dataUri(await noisyJpeg(4000, 3000, seed), 'image/jpeg')),
    );
    dashscope.options.rateLimitPerSecond = 3;
    const response = await edit('x-image-edit-plus', { n: 3, seed: 11 }, large);
    expect(response.status).toBe(200);
    expect(dashscope.calls.map((call) => call.status)).toEqual([200, 200, 200]);
    expect(dashscope.calls.map((call) => call.images.map((image) => [image.width, image.height]))).toEqual(
      Array(3).fill(Array(3).fill([3072, 2304])),
    );
    const starts = dashscope.calls.map((call) => call.at).sort((a, b) => a - b);
    const gaps = starts.slice(1).map((at, i) => at - starts[i]);
    // Scaled after the first turn, the first call would leave late by the scaling's few hundred ms and the second on
    // time: a gap far under the pace. Half the pace leaves room for a loaded machine's scheduling.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(ROUTE_PACE_MS / 2);
  });
});
