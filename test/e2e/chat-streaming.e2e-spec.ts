import OpenAI from 'openai';
import { OpenAiFake } from '../fakes/openai-fake';
import {
  createApplication,
  getJson,
  RunningApi,
  startApi,
  startWorker,
  testEnv,
  waitFor,
  waitUntil,
} from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

/** Chat `stream: true` (docs/architecture.md): SSE relayed from the worker through a Redis Stream, with the official SDK. */
describe('POST /v1/chat/completions with stream: true', () => {
  const upstream = new OpenAiFake({
    chatReply: 'The quick brown fox jumps over the lazy dog near the quiet river bank today.',
  });
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  beforeEach(() => {
    upstream.reset();
    upstream.setDelay(0);
  });

  const messages = [{ role: 'user' as const, content: 'tell me about the fox' }];

  it('streams several chunks that add up to the non-streamed answer, with a usage chunk when asked', async () => {
    const whole = await client.chat.completions.create({ model: 'x-chat', messages, temperature: 0, seed: 1 });
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'x-chat',
        messages,
        temperature: 0,
        seed: 1,
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    expect(response.headers.get('x-gateway-route')).toBe('primary:gpt-test');
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const contentChunks = chunks.filter((chunk) => chunk.choices[0]?.delta?.content);
    expect(contentChunks.length).toBeGreaterThan(5);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe(
      whole.choices[0].message.content,
    );
    expect(
      chunks.every(
        (chunk) =>
          chunk.object === 'chat.completion.chunk' &&
          chunk.model === 'x-chat' &&
          chunk.id.startsWith('chatcmpl-') &&
          chunk.created > 0,
      ),
    ).toBe(true);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
    const usage = chunks[chunks.length - 1].usage;
    expect(usage).toEqual(whole.usage);
    // The upstream is always asked for usage; the caller gets the chunk only when it asked.
    expect(upstream.calls[1].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('leaves the usage chunk out unless asked, ends with [DONE], and records the whole completion', async () => {
    const response = await checkedFetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x-chat', messages, stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const events = text
      .trim()
      .split('\n\n')
      .map((event) => event.replace(/^data: /, ''));
    expect(events[events.length - 1]).toBe('[DONE]');
    expect(events.slice(0, -1).every((event) => !JSON.parse(event).usage)).toBe(true);
    const taskId = response.headers.get('x-task-id')!;
    const task = await waitFor(
      async () => (await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey)).body,
      (view) => view.status === 'succeeded',
      'the task record',
    );
    expect(task.result.choices[0].message.content).toBe(
      'The quick brown fox jumps over the lazy dog near the quiet river bank today.',
    );
    expect(task.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('answers an upstream refusal before the first chunk as an ordinary 400', async () => {
    upstream.failNext({
      times: 1,
      status: 400,
      body: { error: { message: 'bad request upstream', type: 'invalid_request_error' } },
    });
    const response = await checkedFetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x-chat', messages, stream: true }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('InvalidParameter');
  });

  it('stops generating when the client disconnects mid-stream, and records the usage of what was generated', async () => {
    const longReply = new OpenAiFake({
      chatReply: Array.from({ length: 60 }, (_, i) => `word${i}`).join(' '),
      streamChunkDelayMs: 50,
    });
    await longReply.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: longReply.baseUrl });
    const [slowApi, slowWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey: key } = await createApplication(slowApi);
      const abort = new AbortController();
      const response = await checkedFetch(`${slowApi.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'x-chat', messages, stream: true }),
        signal: abort.signal,
      });
      const taskId = response.headers.get('x-task-id')!;
      const reader = response.body!.getReader();
      let received = '';
      while ((received.match(/word/g) ?? []).length < 3)
        received += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      await waitUntil(
        () => longReply.streamed[0]?.closedEarly === true,
        'the upstream stream to be closed by the worker',
        5_000,
      );
      expect(longReply.streamed[0].sent).toBeLessThan(30);
      const task = await waitFor(
        async () => (await getJson(`${slowApi.url}/v1/tasks/${taskId}`, key)).body,
        (view) => ['succeeded', 'failed'].includes(view.status),
        'the task record',
      );
      expect(task.result.choices[0].finish_reason).toBe('cancelled');
      expect(task.usage.completion_tokens).toBeGreaterThan(0);
      expect(task.usage.completion_tokens).toBeLessThan(60);
    } finally {
      await Promise.all([slowApi.close(), slowWorker.close()]);
      await longReply.stop();
    }
  });

  it('refuses stream with X-Async or an Idempotency-Key', async () => {
    for (const header of [{ 'x-async': 'enable' }, { 'idempotency-key': 'k1' }] as Record<string, string>[]) {
      const response = await checkedFetch(`${api.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...header },
        body: JSON.stringify({ model: 'x-chat', messages, stream: true }),
      });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('UnsupportedParameter');
    }
  });
});
