import { MAX_RECORDED_UPSTREAM_ATTEMPTS } from '@gateway/contracts';
import { TasksRepository, UsageDailyRepository } from '@gateway/db';
import { GatewayRedis } from '@gateway/redis';
import { encode } from 'gpt-tokenizer/cjs/encoding/cl100k_base';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import { OPENAI_CHARS_PER_TOKEN } from '../fakes/upstream-rules';
import { ENTRY_POINTS } from '../../scripts/processes';
import { bullmqScriptSha } from '../helpers/bullmq-scripts';
import {
  createApplication,
  getJson,
  postJson,
  processEnv,
  ROOT,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

/** What the OpenAI fake reports as the usage of `texts`. */
const fakeTokens = (texts: string[]) =>
  texts.reduce((sum, text) => sum + Math.ceil(text.length / OPENAI_CHARS_PER_TOKEN), 0);

describe('POST /v1/embeddings', () => {
  const primary = new OpenAiFake();
  const secondary = new OpenAiFake();
  const broken = new OpenAiFake();
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    await Promise.all([primary.start(), secondary.start(), broken.start()]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: primary.baseUrl,
      UPSTREAM_SECONDARY_BASE_URL: secondary.baseUrl,
      UPSTREAM_BROKEN_BASE_URL: broken.baseUrl,
      USAGE_FLUSH_MS: 100,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([primary.stop(), secondary.stop(), broken.stop()]);
  });

  beforeEach(() => [primary, secondary, broken].forEach((fake) => fake.reset()));

  it('answers the official openai SDK with the upstream vector at the requested dimensions', async () => {
    const result = await client.embeddings.create({
      model: 'text-embedding-v4',
      input: 'hello world',
      dimensions: 256,
      encoding_format: 'float',
    });
    expect(result.object).toBe('list');
    expect(result.model).toBe('text-embedding-v4');
    expect(result.data[0].embedding).toHaveLength(256);
    expect(result.data[0].embedding).toEqual(fakeVector('hello world', 256));
    expect(result.usage.prompt_tokens).toBeGreaterThan(0);
    expect(primary.calls[0].body).toMatchObject({ model: 'text-embedding-v4', dimensions: 256 });
  });

  it('uses the catalog default dimensions when none are asked', async () => {
    const result = await client.embeddings.create({ model: 'text-embedding-v4', input: 'x', encoding_format: 'float' });
    expect(result.data[0].embedding).toHaveLength(1024);
  });

  it('returns base64 as little-endian float32 that decodes to the float answer', async () => {
    const body = { model: 'text-embedding-v4', input: ['one', 'two'], dimensions: 64 };
    const floats = await postJson(`${api.url}/v1/embeddings`, { ...body, encoding_format: 'float' }, apiKey);
    const base64 = await postJson(`${api.url}/v1/embeddings`, { ...body, encoding_format: 'base64' }, apiKey);
    expect(base64.status).toBe(200);
    base64.body.data.forEach((item: { embedding: string; index: number }) => {
      const bytes = Buffer.from(item.embedding, 'base64');
      expect(bytes.length).toBe(64 * 4);
      const decoded = Array.from({ length: 64 }, (_, i) => bytes.readFloatLE(i * 4));
      expect(decoded).toEqual(floats.body.data[item.index].embedding);
    });
    // The SDK's own default is base64, decoded on the client side.
    const viaSdk = await client.embeddings.create({ model: 'text-embedding-v4', input: 'one', dimensions: 64 });
    expect(viaSdk.data[0].embedding).toEqual(floats.body.data[0].embedding);
  });

  it('keeps the order of a batch', async () => {
    const input = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'];
    const result = await client.embeddings.create({
      model: 'text-embedding-v4',
      input,
      dimensions: 128,
      encoding_format: 'float',
    });
    expect(result.data.map((d) => d.index)).toEqual(input.map((_, i) => i));
    result.data.forEach((item, i) => expect(item.embedding).toEqual(fakeVector(input[i], 128)));
  });

  describe('inputs as clients send them', () => {
    const texts = ['The cat sleeps on the sofa.', '你好, world', 'naïve café 🙂'];

    it('embeds cl100k token ids to the same vectors as the texts they encode, sending the upstream text', async () => {
      const body = { model: 'text-embedding-v4', dimensions: 64, encoding_format: 'float' };
      const asText = await postJson(`${api.url}/v1/embeddings`, { ...body, input: texts }, apiKey);
      const asIds = await postJson(
        `${api.url}/v1/embeddings`,
        { ...body, input: texts.map((text) => encode(text)) },
        apiKey,
      );
      const oneAsIds = await postJson(`${api.url}/v1/embeddings`, { ...body, input: encode(texts[1]) }, apiKey);
      expect([asText.status, asIds.status, oneAsIds.status]).toEqual([200, 200, 200]);
      expect(asIds.body.data).toEqual(asText.body.data);
      expect(oneAsIds.body.data[0].embedding).toEqual(asText.body.data[1].embedding);
      expect(primary.calls.map((call) => call.body.input)).toEqual([texts, texts, [texts[1]]]);
      // Usage is the upstream's count of the text, whichever way it was sent.
      expect(asIds.body.usage).toEqual(asText.body.usage);
    });

    it('embeds 2,048 inputs through a route that takes 10 a call: 205 calls in parallel, one answer in order, one task billed once', async () => {
      // An application of its own, so its day's roll-up holds this request alone.
      const own = await createApplication(api, 'a batch of 2048');
      primary.setDelay(20);
      const input = Array.from({ length: 2048 }, (_, i) => `input number ${i} of the batch`);
      try {
        const response = await postJson(
          `${api.url}/v1/embeddings`,
          { model: 'text-embedding-v4', input, dimensions: 64, encoding_format: 'float' },
          own.apiKey,
        );
        expect(response.status).toBe(200);
        expect(response.body.data.map((item: { index: number }) => item.index)).toEqual(input.map((_, i) => i));
        response.body.data.forEach((item: { embedding: number[] }, i: number) =>
          expect(item.embedding).toEqual(fakeVector(input[i], 64)),
        );
        const sent = primary.calls.map((call) => call.body.input as string[]);
        expect(sent).toHaveLength(Math.ceil(2048 / 10));
        expect(sent.every((part) => part.length <= 10)).toBe(true);
        expect(sent.flat().sort()).toEqual([...input].sort());
        // In parallel, yet never more at once than one request keeps in flight on a route without max_concurrency.
        expect(primary.maxInFlight).toBeGreaterThan(1);
        expect(primary.maxInFlight).toBeLessThanOrEqual(8);

        const tokens = fakeTokens(input);
        expect(response.body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
        const taskId = response.headers.get('x-task-id')!;
        const task = await getJson(`${api.url}/v1/tasks/${taskId}`, own.apiKey);
        expect(task.body).toMatchObject({
          status: 'succeeded',
          usage: { prompt_tokens: tokens },
          cost: (tokens * 500) / 1e9,
        });
        const record = await waitFor(
          () => api.app.get(TasksRepository).findForApp(taskId, own.appId),
          (found) => found !== null,
          'the task record',
        );
        expect(record).toMatchObject({
          status: 'succeeded',
          usage: { prompt_tokens: tokens },
          costNanos: tokens * 500,
        });
        expect(record!.upstream).toHaveLength(MAX_RECORDED_UPSTREAM_ATTEMPTS);
        const day = new Date().toISOString().slice(0, 10);
        const [row] = await waitFor(
          () => api.app.get(UsageDailyRepository).listForApp(own.appId, day, day),
          (rows) => rows.length > 0,
          'the roll-up',
        );
        expect(row).toMatchObject({
          model: 'text-embedding-v4',
          calls: 1,
          errors: 0,
          promptTokens: tokens,
          costNanos: tokens * 500,
        });
      } finally {
        primary.setDelay();
      }
    });

    it("sends OpenAI's own model 2,048 inputs in one call, as it takes them", async () => {
      const input = Array.from({ length: 2048 }, (_, i) => `text ${i}`);
      const response = await postJson(
        `${api.url}/v1/embeddings`,
        { model: 'openai-embedding', input, dimensions: 256 },
        apiKey,
      );
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(2048);
      expect(primary.calls).toHaveLength(1);
      expect(primary.calls[0].body).toMatchObject({ model: 'text-embedding-3-small', input });
    });

    it('retries a failed part on its own and still answers every input in order', async () => {
      primary.failNext({ times: 1, status: 500 });
      const input = Array.from({ length: 30 }, (_, i) => `retried ${i}`);
      const result = await client.embeddings.create({
        model: 'text-embedding-v4',
        input,
        dimensions: 64,
        encoding_format: 'float',
      });
      expect(result.data.map((item) => item.embedding)).toEqual(input.map((text) => fakeVector(text, 64)));
      expect(primary.calls).toHaveLength(3 + 1);
    });

    it('refuses the request when the upstream refuses one part as invalid, answering none of it', async () => {
      primary.failNext({
        times: 1,
        status: 400,
        body: { error: { message: 'input contains forbidden text', type: 'invalid_request_error' } },
      });
      const input = Array.from({ length: 30 }, (_, i) => `refused ${i}`);
      const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input }, apiKey);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'InvalidParameter' });
      expect(response.body.error.message).toContain('input contains forbidden text');
      // The refused part is not retried; the others had started alongside it.
      expect(primary.calls).toHaveLength(3);
    });

    it('sends the whole input to the next route when a part keeps failing, so no answer mixes two models', async () => {
      broken.failNext({ times: 100, status: 503 });
      const input = Array.from({ length: 10 }, (_, i) => `fallback ${i}`);
      const response = await postJson(
        `${api.url}/v1/embeddings`,
        { model: 'batched-fallback-embedding', input },
        apiKey,
      );
      expect(response.status).toBe(200);
      expect(response.body.data.map((item: { embedding: number[] }) => item.embedding)).toEqual(
        input.map((text) => fakeVector(text, 64)),
      );
      // One part at a time on the failing route: its first part's tries, then no other part starts.
      expect(broken.calls).toHaveLength(3);
      expect(broken.calls.every((call) => (call.body.input as string[]).length === 4)).toBe(true);
      expect(secondary.calls.map((call) => call.body.input)).toEqual([input]);
    });
  });

  it('truncates and re-normalises when an upstream ignores dimensions', async () => {
    const full = new OpenAiFake({ honoursDimensions: false, nativeDimensions: 1024 });
    await full.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: full.baseUrl });
    const [otherApi, otherWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey: key } = await createApplication(otherApi);
      const result = await postJson(
        `${otherApi.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'hi', dimensions: 256 },
        key,
      );
      const vector: number[] = result.body.data[0].embedding;
      expect(vector).toHaveLength(256);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
    } finally {
      await Promise.all([otherApi.close(), otherWorker.close()]);
      await full.stop();
    }
  });

  describe('rejects bad input with 400 and the parameter at fault', () => {
    it.each([
      [
        'an unsupported dimensions value',
        { model: 'text-embedding-v4', input: 'x', dimensions: 100 },
        'InvalidParameter',
        'dimensions',
      ],
      ['an empty string', { model: 'text-embedding-v4', input: '' }, 'InvalidParameter', 'input'],
      ['an empty array', { model: 'text-embedding-v4', input: [] }, 'InvalidParameter', 'input'],
      [
        'more inputs than the model takes',
        { model: 'text-embedding-v4', input: Array(2049).fill('x') },
        'InvalidParameter',
        'input',
      ],
      [
        'a token id outside cl100k_base',
        {
          model: 'text-embedding-v4',
          input: [
            [1, 2],
            [3, 100300],
          ],
        },
        'InvalidParameter',
        'input[1][1]',
      ],
      ['a fractional token id', { model: 'text-embedding-v4', input: [15339, 1917.5] }, 'InvalidParameter', 'input[1]'],
      [
        'strings and token ids in one request',
        { model: 'text-embedding-v4', input: ['hello', [15339]] },
        'InvalidParameter',
        'input[1]',
      ],
      ['an empty token-id array', { model: 'text-embedding-v4', input: [[15339], []] }, 'InvalidParameter', 'input[1]'],
      [
        // 8,193 times cl100k's id 16, "1": text-embedding-v4 counts the text in Qwen2 tokens, one a digit.
        'a token-id array over the token limit',
        { model: 'text-embedding-v4', input: [[1], Array(8193).fill(16)] },
        'InvalidParameter',
        'input[1]',
      ],
      [
        'more than 300,000 tokens in all',
        { model: 'text-embedding-v4', input: Array(41).fill('word '.repeat(7500).trim()) },
        'InvalidParameter',
        'input',
      ],
      [
        'an input over the token limit',
        { model: 'text-embedding-v4', input: ['ok', 'word '.repeat(9000)] },
        'InvalidParameter',
        'input[1]',
      ],
      [
        'an unknown encoding',
        { model: 'text-embedding-v4', input: 'x', encoding_format: 'int8' },
        'InvalidParameter',
        'encoding_format',
      ],
      [
        'an unknown field',
        { model: 'text-embedding-v4', input: 'x', temperature: 1 },
        'InvalidParameter',
        'temperature',
      ],
      ['a missing model', { input: 'x' }, 'InvalidParameter', 'model'],
      ['an unknown model', { model: 'no-such-model', input: 'x' }, 'ModelNotFound', 'model'],
      ['a chat model', { model: 'x-chat', input: 'x' }, 'ModelNotFound', 'model'],
    ])('%s', async (_name, body, code, param) => {
      const response = await postJson(`${api.url}/v1/embeddings`, body, apiKey);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code, param, type: 'invalid_request_error' });
      expect(response.body.request_id).toBe(response.headers.get('x-request-id'));
      expect(primary.calls).toHaveLength(0);
    });

    it('a body that is not JSON', async () => {
      const response = await checkedFetch(`${api.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: '{"model": ',
      });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('InvalidParameter');
    });
  });

  describe('authentication', () => {
    it('answers 401 MissingAuthorization without a key', async () => {
      const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('MissingAuthorization');
    });

    it.each([
      ['a malformed key', 'not-a-key'],
      ['a well-formed key with a bad checksum', `sk-${'A'.repeat(49)}`],
      ['an unknown valid-looking key', 'unknown'],
    ])('answers 401 InvalidApiKey for %s', async (_name, key) => {
      const apiKeyToSend = key === 'unknown' ? await unknownButWellFormedKey() : key;
      const response = await postJson(
        `${api.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'x' },
        apiKeyToSend,
      );
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('InvalidApiKey');
    });

    it('guards GET /v1/models too', async () => {
      expect((await getJson(`${api.url}/v1/models`)).status).toBe(401);
    });
  });

  describe('upstream failures', () => {
    it('retries an upstream 500 and succeeds', async () => {
      primary.failNext({ times: 1, status: 500 });
      const result = await client.embeddings.create({
        model: 'text-embedding-v4',
        input: 'retry me',
        encoding_format: 'float',
      });
      expect(result.data[0].embedding).toEqual(fakeVector('retry me', 1024));
      expect(primary.calls).toHaveLength(2);
    });

    it('retries a 429 and a dropped connection', async () => {
      primary.failNext({ times: 1, status: 429 });
      primary.failNext({ times: 1, dropConnection: true });
      const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey);
      expect(response.status).toBe(200);
      expect(primary.calls).toHaveLength(3);
    });

    it('falls back to the next route when the first keeps failing', async () => {
      broken.failNext({ times: 100, status: 503 });
      const response = await postJson(`${api.url}/v1/embeddings`, { model: 'fallback-embedding', input: 'x' }, apiKey);
      expect(response.status).toBe(200);
      expect(response.body.data[0].embedding).toEqual(fakeVector('x', 256));
      expect(broken.calls.length).toBe(3); // first try + UPSTREAM_RETRIES
      expect(secondary.calls).toHaveLength(1);
      expect(secondary.calls[0].body.model).toBe('embed-a');
      // The route that served, by its catalog key; the body keeps the id the caller used.
      expect(response.headers.get('x-gateway-route')).toBe('secondary:embed-a');
      expect(response.body.model).toBe('fallback-embedding');
    });

    it('answers 500 UpstreamError when every route fails', async () => {
      broken.failNext({ times: 100, status: 500 });
      secondary.failNext({ times: 100, status: 502 });
      const response = await postJson(`${api.url}/v1/embeddings`, { model: 'fallback-embedding', input: 'x' }, apiKey);
      expect(response.status).toBe(500);
      expect(response.body.error).toMatchObject({ code: 'UpstreamError', type: 'api_error' });
      // No upstream named a time: the gateway's default.
      expect(response.headers.get('retry-after')).toBe('10');
      const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
      expect(task.body).toMatchObject({ status: 'failed', error: { code: 'UpstreamError' } });
    });

    it("maps an upstream 400 to the caller's 400 without retrying", async () => {
      primary.failNext({
        times: 1,
        status: 400,
        body: { error: { message: 'input contains forbidden text', type: 'invalid_request_error' } },
      });
      const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input: 'x' }, apiKey);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('InvalidParameter');
      expect(response.body.error.message).toContain('input contains forbidden text');
      expect(primary.calls).toHaveLength(1);
    });
  });

  it('fetches once per job on a quiet queue: no empty marker wait, no empty moveToActive while a job runs', async () => {
    const fetchScripts = [bullmqScriptSha('moveToActive'), bullmqScriptSha('onWake:moveToActive')];
    const monitor = await api.app.get(GatewayRedis).client.duplicate().monitor();
    const counts = { waits: 0, fetches: 0 };
    monitor.on('monitor', (_time: string, args: string[]) => {
      const verb = args[0].toLowerCase();
      if (verb === 'bzpopmin' && args[1].includes(':embeddings:')) counts.waits++;
      if (verb === 'evalsha' && fetchScripts.includes(args[1]) && args[3].includes(':embeddings:')) counts.fetches++;
    });
    const body = { model: 'text-embedding-v4', input: 'quiet', dimensions: 64 };
    try {
      await postJson(`${api.url}/v1/embeddings`, body, apiKey);
      // Longer than the fetch loop's pause: a job still running when the loop looks again.
      primary.setDelay(20);
      Object.assign(counts, { waits: 0, fetches: 0 });
      const requests = 10;
      for (let i = 0; i < requests; i++) {
        expect((await postJson(`${api.url}/v1/embeddings`, body, apiKey)).status).toBe(200);
      }
      // A pick-up leaves BullMQ's marker behind, and the loop looks again while the job runs: without taking the
      // marker back and marking the queue drained, each job adds a fetch that finds nothing (measured: 20 for 10).
      expect(counts.waits).toBeLessThanOrEqual(requests + 1);
      expect(counts.fetches).toBeLessThanOrEqual(requests + 1);
    } finally {
      primary.setDelay();
      monitor.disconnect();
    }
  });

  it("sends the shipped catalog's text-embedding-v4 to DashScope's compatible mode 10 inputs a call", async () => {
    // The fake serves compatible mode under its root, where the route's base_path points.
    const dashscope = await new OpenAiFake().start();
    const env = testEnv({
      MODELS_CONFIG: join(ROOT, 'config', 'models.yaml'),
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.rootUrl,
    });
    const [shippedApi, shippedWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey: key } = await createApplication(shippedApi);
      const input = Array.from({ length: 2048 }, (_, i) => `shipped ${i}`);
      const response = await postJson(
        `${shippedApi.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input, dimensions: 64 },
        key,
      );
      expect(response.status).toBe(200);
      expect(response.body.data[2047].embedding).toEqual(fakeVector(input[2047], 64));
      expect(dashscope.calls).toHaveLength(205);
      expect(dashscope.calls.every((call) => call.path === '/compatible-mode/v1/embeddings')).toBe(true);
    } finally {
      await Promise.all([shippedApi.close(), shippedWorker.close()]);
      await dashscope.stop();
    }
  });

  it("fails a DashScope TPM throttle that outlasts the retries with 500 and Retry-After, never answering another space's vectors", async () => {
    const dashscope = await new OpenAiFake().start();
    // The shipped catalog used to fall back to OpenAI, then to the local all-MiniLM, under the same id.
    const openai = await new OpenAiFake().start();
    const env = testEnv({
      MODELS_CONFIG: join(ROOT, 'config', 'models.yaml'),
      UPSTREAM_DASHSCOPE_BASE_URL: dashscope.rootUrl,
      UPSTREAM_OPENAI_BASE_URL: openai.baseUrl,
    });
    const [shippedApi, shippedWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey: key } = await createApplication(shippedApi);
      // Compatible mode's answer to a passing TPM throttle: OpenAI's insufficient_quota, with DashScope's request_id.
      dashscope.failNext({
        times: 100,
        status: 429,
        body: {
          error: {
            message: 'You exceeded your current quota, please check your plan and billing details.',
            type: 'insufficient_quota',
            param: null,
            code: 'insufficient_quota',
          },
          request_id: 'a1b2c3d4-0000-4000-8000-000000000000',
        },
      });
      const response = await postJson(
        `${shippedApi.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'throttled', dimensions: 64 },
        key,
      );
      expect(response.status).toBe(500);
      expect(response.body.error).toMatchObject({ code: 'UpstreamError', type: 'api_error' });
      expect(response.body.data).toBeUndefined();
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      // Retried on DashScope (first try + UPSTREAM_RETRIES), and no other space was asked.
      expect(dashscope.calls).toHaveLength(3);
      expect(openai.calls).toHaveLength(0);
    } finally {
      await Promise.all([shippedApi.close(), shippedWorker.close()]);
      await Promise.all([dashscope.stop(), openai.stop()]);
    }
  });

  it('refuses to start on a catalog whose model mixes vector spaces, naming the model', async () => {
    const catalog = join(mkdtempSync(join(tmpdir(), 'mixed-spaces-')), 'models.yaml');
    writeFileSync(
      catalog,
      [
        'models:',
        '  - id: text-embedding-v4',
        '    capability: embeddings',
        '    routes:',
        '      - { provider: openai-compatible, upstream: primary, model: text-embedding-v4 }',
        '      - { provider: local, model: all-minilm-l6-v2 }',
        '',
      ].join('\n'),
    );
    // The built api as an operator starts it: Nest ends the process when a provider fails to construct.
    const api = spawnSync(process.execPath, [ENTRY_POINTS.api], {
      env: processEnv(
        testEnv({
          MODELS_CONFIG: catalog,
          UPSTREAM_PRIMARY_BASE_URL: primary.baseUrl,
          API_PORT: 0,
          LOG_LEVEL: 'error',
        }),
      ),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(api.status).not.toBe(0);
    expect(api.stdout + api.stderr).toMatch(
      /model \\?"text-embedding-v4\\?" embed into different vector spaces \(primary\/text-embedding-v4, local\/all-minilm-l6-v2\)/,
    );
  });

  async function unknownButWellFormedKey(): Promise<string> {
    const { apiKeyChecksumKeys, generateApiKey } = await import('@gateway/tenancy');
    return generateApiKey(apiKeyChecksumKeys(api.config)[0]);
  }
});
