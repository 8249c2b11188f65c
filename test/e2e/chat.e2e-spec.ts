import OpenAI from 'openai';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  postJson,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

describe('POST /v1/chat/completions', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, UPSTREAM_PRIMARY_API_KEY: 'upstream-secret' });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  beforeEach(() => upstream.reset());

  it('answers the official openai SDK in the OpenAI shape, with usage', async () => {
    const completion = await client.chat.completions.create({
      model: 'x-chat',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
      max_tokens: 50,
      temperature: 0.2,
      seed: 7,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('x-chat');
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: 'echo: hello there',
      refusal: null,
      annotations: [],
    });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    // The upstream sees its own model id, our upstream key and the sampling parameters.
    expect(upstream.calls[0].body).toMatchObject({ model: 'gpt-test', max_tokens: 50, temperature: 0.2, seed: 7 });
  });

  it('records usage and cost on the task', async () => {
    const response = await postJson(
      `${api.url}/v1/chat/completions`,
      { model: 'x-chat', messages: [{ role: 'user', content: 'count me' }] },
      apiKey,
    );
    // What served: the route's catalog key (upstream name and model, never its address or key).
    expect(response.headers.get('x-gateway-route')).toBe('primary:gpt-test');
    const task = await getJson(`${api.url}/v1/tasks/${response.headers.get('x-task-id')}`, apiKey);
    expect(task.body).toMatchObject({
      status: 'succeeded',
      endpoint: 'chat.completions',
      model: 'x-chat',
      route: 'primary:gpt-test',
      usage: response.body.usage,
    });
    expect(task.headers.get('x-gateway-route')).toBe('primary:gpt-test');
    // x-chat costs 0.0008 per 1k input and 0.002 per 1k output tokens: 800 and 2,000 nanos a token, exactly.
    const { prompt_tokens, completion_tokens } = response.body.usage;
    expect(task.body.cost).toBe((800 * prompt_tokens + 2_000 * completion_tokens) / 1e9);
    expect(task.body.result).toEqual(response.body);
  });

  it('names the route on an asynchronous task read later, and on an answer replayed by Idempotency-Key', async () => {
    const body = { model: 'x-chat', messages: [{ role: 'user', content: 'once only' }] };
    const post = (headers: Record<string, string>) =>
      checkedFetch(`${api.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
        body: JSON.stringify(body),
      });
    const queued = await post({ 'x-async': 'enable' });
    expect(queued.status).toBe(202);
    const { task_id: taskId } = (await queued.json()) as { task_id: string };
    const task = await waitFor(
      () => getJson(`${api.url}/v1/tasks/${taskId}`, apiKey),
      (read) => read.body.status === 'succeeded',
      'the asynchronous task',
    );
    expect(task.headers.get('x-gateway-route')).toBe('primary:gpt-test');
    expect(task.body.route).toBe('primary:gpt-test');

    const key = `route-${Date.now()}`;
    const first = await post({ 'idempotency-key': key });
    const replay = await post({ 'idempotency-key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect([first.headers.get('x-gateway-route'), replay.headers.get('x-gateway-route')]).toEqual([
      'primary:gpt-test',
      'primary:gpt-test',
    ]);
  });

  it.each([
    ['an unknown field', { frobnicate: 2 }, 'InvalidParameter', 'frobnicate'],
    ['a temperature above 2', { temperature: 3 }, 'InvalidParameter', 'temperature'],
    ['top_p above 1', { top_p: 1.5 }, 'InvalidParameter', 'top_p'],
    ['a bad role', { messages: [{ role: 'robot', content: 'x' }] }, 'InvalidParameter', 'messages[0].role'],
    ['a message without content', { messages: [{ role: 'user' }] }, 'InvalidParameter', 'messages[0].content'],
    ['no messages', { messages: [] }, 'InvalidParameter', 'messages'],
    ['five stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'InvalidParameter', 'stop'],
    ['max_tokens over the model limit', { max_tokens: 100_000 }, 'InvalidParameter', 'max_tokens'],
    [
      'stream_options without stream',
      { stream_options: { include_usage: true } },
      'InvalidParameter',
      'stream_options',
    ],
    ['a model without a configured provider', { model: 'unrouted-chat' }, 'ModelNotFound', 'model'],
    ['an embeddings model', { model: 'text-embedding-v4' }, 'ModelNotFound', 'model'],
  ])('rejects %s with 400', async (_name, patch, code, param) => {
    const body = { model: 'x-chat', messages: [{ role: 'user', content: 'hi' }], ...patch };
    const response = await postJson(`${api.url}/v1/chat/completions`, body, apiKey);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code, param });
    expect(upstream.calls).toHaveLength(0);
  });

  it('treats an upstream that refuses our key as a failed route: 500 UpstreamError, key never echoed', async () => {
    const locked = new OpenAiFake({ apiKey: 'something-else' });
    await locked.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: locked.baseUrl, UPSTREAM_PRIMARY_API_KEY: 'upstream-secret' });
    const [otherApi, otherWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey: key } = await createApplication(otherApi);
      const response = await postJson(
        `${otherApi.url}/v1/chat/completions`,
        { model: 'x-chat', messages: [{ role: 'user', content: 'x' }] },
        key,
      );
      expect(response.status).toBe(500);
      expect(response.body.error.code).toBe('UpstreamError');
      expect(JSON.stringify(response.body)).not.toContain('upstream-secret');
      expect(locked.calls).toHaveLength(1); // a refused key is not retried
    } finally {
      await Promise.all([otherApi.close(), otherWorker.close()]);
      await locked.stop();
    }
  });
});
