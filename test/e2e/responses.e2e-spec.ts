import { createOpenAI } from '@ai-sdk/openai';
import { EnvSource } from '@gateway/common';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAiFake } from '../fakes/openai-fake';
import { ensureLocalModels, expectOneTaskPerCall } from '../helpers/client-calls';
import {
  createApplication,
  getJson,
  postJson,
  ROOT,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';
import { checkedFetch } from '../helpers/contract';

interface Target {
  name: string;
  model: string;
  /** Nanos a prompt and a completion token cost (the catalog's per-1k prices × 10^9 / 1000). */
  nanos: { prompt: number; completion: number };
  start(): Promise<EnvSource>;
  stop(): Promise<void>;
}

const fake = new OpenAiFake();

const TARGETS: Target[] = [
  {
    name: 'the local engine',
    model: 'smollm2-135m-instruct',
    nanos: { prompt: 0, completion: 0 },
    async start() {
      await ensureLocalModels();
      return { LOCAL_MODELS: 'on', LOCAL_MODELS_DIR: join(ROOT, '.data', 'models') };
    },
    async stop() {},
  },
  {
    name: 'the strict OpenAI fake as x-chat’s upstream',
    model: 'x-chat',
    nanos: { prompt: 800, completion: 2_000 },
    async start() {
      await fake.start();
      return { UPSTREAM_PRIMARY_BASE_URL: fake.baseUrl, UPSTREAM_PRIMARY_API_KEY: 'upstream-secret' };
    },
    stop: () => fake.stop(),
  },
];

/** Short answers: the local model runs on the test machine's CPU. 16 is OpenAI's least max_output_tokens. */
const SHORT = { temperature: 0, max_output_tokens: 16 } as const;

/** The client libraries as users run them: only `baseURL`, the key and a fetch that notes each call's task id. */
describe.each(TARGETS)('Responses API clients, unchanged, against $name', (target) => {
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let appId: string;
  let taskIds: string[];
  let client: OpenAI;
  let provider: ReturnType<typeof createOpenAI>;

  const noting: typeof fetch = async (input, init) => {
    const response = await checkedFetch(input, init);
    const taskId = response.headers.get('x-task-id');
    if (taskId) taskIds.push(taskId);
    return response;
  };

  beforeAll(async () => {
    const env = testEnv(await target.start());
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    const baseURL = `${api.url}/v1`;
    client = new OpenAI({ apiKey, baseURL, maxRetries: 0, timeout: 60_000, fetch: noting });
    provider = createOpenAI({ apiKey, baseURL, fetch: noting });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await target.stop();
  });

  beforeEach(() => {
    taskIds = [];
  });

  /** Each HTTP call the client made is one succeeded task with its usage and cost. */
  const expectOneRecordPerCall = (calls: number) =>
    expectOneTaskPerCall({ api, apiKey, appId }, taskIds, { calls, endpoint: 'responses', prices: target.nanos });

  it('answers client.responses.create with a response object, its text, usage and id from the task', async () => {
    const response = await client.responses.create({
      model: target.model,
      instructions: 'Answer in one short sentence.',
      input: 'What is the capital of France?',
      ...SHORT,
    });
    expect(response).toMatchObject({
      id: `resp_${taskIds[0].slice('task_'.length)}`,
      object: 'response',
      model: target.model,
      instructions: 'Answer in one short sentence.',
      max_output_tokens: 16,
      store: true,
      error: null,
    });
    expect(['completed', 'incomplete']).toContain(response.status);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    await expectOneRecordPerCall(1);
    const task = await getJson(`${api.url}/v1/tasks/${taskIds[0]}`, apiKey);
    expect(task.body).toMatchObject({ endpoint: 'responses', status: 'succeeded' });
    expect(task.body.result).toEqual(JSON.parse(JSON.stringify({ ...response, output_text: undefined })));
  });

  it('streams the documented events, whose deltas add up to the response.completed it ends with', async () => {
    const stream = await client.responses.create({
      model: target.model,
      input: 'Name a colour.',
      stream: true,
      ...SHORT,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      expect.stringMatching(/^response\.(completed|incomplete)$/),
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    const last = events[events.length - 1] as OpenAI.Responses.ResponseCompletedEvent;
    const [message] = last.response.output as OpenAI.Responses.ResponseOutputMessage[];
    expect(deltas.join('')).toBe((message.content[0] as OpenAI.Responses.ResponseOutputText).text);
    await expectOneRecordPerCall(1);
    const task = await getJson(`${api.url}/v1/tasks/${taskIds[0]}`, apiKey);
    expect(task.body.result).toEqual(JSON.parse(JSON.stringify(last.response)));
  });

  it('gives the final response of client.responses.stream, and retrieves it by id afterwards', async () => {
    const stream = client.responses.stream({ model: target.model, input: 'Say hello.', ...SHORT });
    const response = await stream.finalResponse();
    expect(response.output_text.length).toBeGreaterThan(0);
    const retrieved = await client.responses.retrieve(response.id);
    expect(retrieved.id).toBe(response.id);
    expect(retrieved.output_text).toBe(response.output_text);
    expect(retrieved.usage).toEqual(response.usage);
  });

  it('continues a conversation from previous_response_id, one task each', async () => {
    const first = await client.responses.create({ model: target.model, input: 'My name is Ada.', ...SHORT });
    const second = await client.responses.create({
      model: target.model,
      input: 'What is my name?',
      previous_response_id: first.id,
      ...SHORT,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text.length).toBeGreaterThan(0);
    // The second call's prompt holds the first exchange: more input tokens than the question alone.
    expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens);
    await expectOneRecordPerCall(2);
  });

  it('serves the Vercel AI SDK’s default model, openai(id), through /v1/responses with generateText', async () => {
    const result = await generateText({
      model: provider(target.model),
      prompt: 'What is the capital of Italy?',
      maxOutputTokens: 16,
      temperature: 0,
      maxRetries: 0,
    });
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.response.id).toMatch(/^resp_/);
    await expectOneRecordPerCall(1);
  });

  it('streams the Vercel AI SDK’s streamText through /v1/responses', async () => {
    const result = streamText({
      model: provider(target.model),
      system: 'Be brief.',
      prompt: 'Name a fruit.',
      maxOutputTokens: 16,
      temperature: 0,
      maxRetries: 0,
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text.length).toBeGreaterThan(0);
    expect(text).toBe(await result.text);
    expect(['stop', 'length']).toContain(await result.finishReason);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    await expectOneRecordPerCall(1);
  });
});

/** What only a deterministic upstream can show: the translation, tools, formats, errors, async and storage. */
describe('POST /v1/responses through the strict OpenAI fake', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let client: OpenAI;

  const weather = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
  };

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

  it('asks the upstream the Chat Completions request it stands for, and keeps store and metadata to itself', async () => {
    const response = await client.responses.create({
      model: 'x-chat',
      instructions: 'be brief',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello there' }] }],
      max_output_tokens: 50,
      temperature: 0.2,
      metadata: { ticket: '42' },
      user: 'u-1',
    });
    expect(response.output_text).toBe('echo: hello there');
    expect(response.metadata).toEqual({ ticket: '42' });
    expect(response.temperature).toBe(0.2);
    const sent = upstream.calls[0].body;
    expect(sent).toMatchObject({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
      max_completion_tokens: 50,
      temperature: 0.2,
      user: 'u-1',
    });
    expect(sent).not.toHaveProperty('store');
    expect(sent).not.toHaveProperty('metadata');
  });

  it('carries the previous response’s input and output, not its instructions, before the new input', async () => {
    const first = await client.responses.create({
      model: 'x-chat',
      instructions: 'first rules',
      input: 'My name is Ada.',
    });
    await client.responses.create({
      model: 'x-chat',
      instructions: 'second rules',
      input: 'What is my name?',
      previous_response_id: first.id,
    });
    expect(upstream.calls[1].body.messages).toEqual([
      { role: 'system', content: 'second rules' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'echo: My name is Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('resolves an item_reference to the stored output item it names', async () => {
    const first = await client.responses.create({ model: 'x-chat', input: 'remember this' });
    await client.responses.create({
      model: 'x-chat',
      input: [
        { role: 'user', content: 'remember this' },
        { type: 'item_reference', id: first.output[0].id! },
        { role: 'user', content: 'and now?' },
      ],
    });
    expect(upstream.calls[1].body.messages).toEqual([
      { role: 'user', content: 'remember this' },
      { role: 'assistant', content: 'echo: remember this' },
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('answers a stream that fails before its first event with the HTTP error, as a call without stream', async () => {
    upstream.failNext({ times: 20, status: 500 });
    const failed = await client.responses.create({ model: 'x-chat', input: 'hi', stream: true }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect(failed).toMatchObject({ status: 500, error: { code: 'UpstreamError' } });
  });

  it('makes a tool round trip: a function_call item, then its output continued by previous_response_id', async () => {
    const call = await client.responses.create({
      model: 'x-chat',
      input: 'Use get_weather for Paris.',
      tools: [weather],
    });
    const [item] = call.output;
    expect(item).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    const functionCall = item as OpenAI.Responses.ResponseFunctionToolCall;
    expect(JSON.parse(functionCall.arguments)).toHaveProperty('city');
    expect(upstream.calls[0].body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: weather.parameters,
          strict: true,
        },
      },
    ]);
    const answer = await client.responses.create({
      model: 'x-chat',
      previous_response_id: call.id,
      input: [{ type: 'function_call_output', call_id: functionCall.call_id, output: 'sunny, 21 °C' }],
      tools: [weather],
    });
    expect(answer.output_text).toBe('echo: Use get_weather for Paris.; get_weather returned sunny, 21 °C');
  });

  it('streams a function call as its item and argument deltas', async () => {
    const stream = client.responses.stream({ model: 'x-chat', input: 'Use get_weather for Oslo.', tools: [weather] });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const response = await stream.finalResponse();
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types).toContain('response.function_call_arguments.done');
    expect(response.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather' });
  });

  it('runs the Vercel AI SDK’s tool loop over /v1/responses, plain and streamed', async () => {
    const provider = createOpenAI({ apiKey, baseURL: `${api.url}/v1` });
    const tools = {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string }>(weather.parameters as never),
        execute: async ({ city }) => `sunny in ${city}`,
      }),
    };
    const plain = await generateText({
      model: provider('x-chat'),
      prompt: 'Use get_weather for Rome.',
      tools,
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(plain.steps[0].toolCalls[0]).toMatchObject({ toolName: 'get_weather' });
    expect(plain.text).toMatch(/^echo: Use get_weather for Rome\.; get_weather returned "?sunny in /);
    const streamed = streamText({
      model: provider('x-chat'),
      prompt: 'Use get_weather for Lima.',
      tools,
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(await streamed.text).toMatch(/^echo: Use get_weather for Lima\.; get_weather returned "?sunny in /);
  });

  it('answers text.format json_schema with JSON that parses', async () => {
    const response = await client.responses.create({
      model: 'x-chat',
      input: 'Give me a city.',
      text: {
        format: {
          type: 'json_schema',
          name: 'city',
          strict: true,
          schema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(JSON.parse(response.output_text)).toHaveProperty('name');
    expect(upstream.calls[0].body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'city' },
    });
  });

  it('says incomplete, with the reason, when max_output_tokens cut the answer', async () => {
    const response = await client.responses.create({
      model: 'x-chat',
      input: 'a long question that the echo will repeat well past sixteen tokens of output, word after word after word',
      max_output_tokens: 16,
    });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('answers X-Async with a task id, and GET /v1/responses/{id} then has the response', async () => {
    const accepted = await checkedFetch(`${api.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'x-async': 'enable' },
      body: JSON.stringify({ model: 'x-chat', input: 'later, please' }),
    });
    expect(accepted.status).toBe(202);
    const { task_id: taskId } = (await accepted.json()) as { task_id: string };
    const id = `resp_${taskId.slice('task_'.length)}`;
    const done = await waitFor(
      () => getJson(`${api.url}/v1/responses/${id}`, apiKey),
      (view) => view.body.status === 'completed',
      `the response ${id}`,
    );
    expect(done.body).toMatchObject({
      id,
      object: 'response',
      output: [{ content: [{ text: 'echo: later, please' }] }],
    });
  });

  it('replays an Idempotency-Key with the same response', async () => {
    const send = () =>
      client.responses.create({ model: 'x-chat', input: 'once' }, { headers: { 'Idempotency-Key': 'resp-once-1' } });
    const [a, b] = [await send(), await send()];
    expect(b).toEqual(a);
    expect(upstream.calls).toHaveLength(1);
  });

  it('reads a response as its own application’s only, and not at all when it was not stored', async () => {
    const kept = await client.responses.create({ model: 'x-chat', input: 'keep me' });
    const other = await createApplication(api, 'other-app');
    expect((await getJson(`${api.url}/v1/responses/${kept.id}`, other.apiKey)).status).toBe(404);
    const unkept = await client.responses.create({ model: 'x-chat', input: 'forget me', store: false });
    expect((await getJson(`${api.url}/v1/responses/${unkept.id}`, apiKey)).body.error).toMatchObject({
      code: 'NotFound',
    });
    const continued = await postJson(
      `${api.url}/v1/responses`,
      { model: 'x-chat', input: 'more', previous_response_id: unkept.id },
      apiKey,
    );
    expect(continued.status).toBe(400);
    expect(continued.body.error).toMatchObject({ code: 'InvalidParameter', param: 'previous_response_id' });
    // Another application's stored response cannot be continued either.
    const foreign = await postJson(
      `${api.url}/v1/responses`,
      { model: 'x-chat', input: 'more', previous_response_id: kept.id },
      other.apiKey,
    );
    expect(foreign.body.error).toMatchObject({ code: 'InvalidParameter', param: 'previous_response_id' });
  });

  it.each([
    ['an unknown field', { seed: 1 }, 'InvalidParameter', 'seed'],
    ['a hosted tool', { tools: [{ type: 'web_search' }] }, 'UnsupportedParameter', 'tools[0].type'],
    ['a reasoning item', { input: [{ type: 'reasoning', summary: [] }] }, 'UnsupportedParameter', 'input[0].type'],
    ['background mode', { background: true }, 'UnsupportedParameter', 'background'],
    ['include', { include: ['message.output_text.logprobs'] }, 'UnsupportedParameter', 'include'],
    ['a temperature of 2', { temperature: 2 }, 'InvalidParameter', 'temperature'],
    [
      'max_output_tokens over the model’s limit',
      { max_output_tokens: 100_000 },
      'InvalidParameter',
      'max_output_tokens',
    ],
    ['max_output_tokens under 16', { max_output_tokens: 8 }, 'InvalidParameter', 'max_output_tokens'],
    [
      'a function output answering no call',
      { input: [{ type: 'function_call_output', call_id: 'call_x', output: 'r' }] },
      'InvalidParameter',
      'input[0].call_id',
    ],
    [
      'an unknown previous response',
      { previous_response_id: 'resp_0000000000000000000000' },
      'InvalidParameter',
      'previous_response_id',
    ],
    ['an unknown model', { model: 'nope' }, 'ModelNotFound', 'model'],
  ])('refuses %s before anything is queued', async (_case, fields, code, param) => {
    const response = await postJson(`${api.url}/v1/responses`, { model: 'x-chat', input: 'hi', ...fields }, apiKey);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code, param });
    expect(response.headers.get('x-task-id')).toBeNull();
    expect(upstream.calls).toHaveLength(0);
  });
});

/**
 * A route whose upstream has the Responses endpoint (catalog `responses: true`, test/fixtures/models.yaml
 * x-chat-responses): the client's request goes there as it sent it, less what the gateway keeps (store, metadata, its
 * ids), and the answer comes back as the gateway's response, as a translated one would.
 */
describe('POST /v1/responses passed through to an upstream with the endpoint', () => {
  const upstream = new OpenAiFake();
  const broken = new OpenAiFake();
  const model = 'x-chat-responses';
  const nanos = { prompt: 800, completion: 2_000 };
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let appId: string;
  let taskIds: string[];
  let client: OpenAI;
  let provider: ReturnType<typeof createOpenAI>;

  const noting: typeof fetch = async (input, init) => {
    const response = await checkedFetch(input, init);
    const taskId = response.headers.get('x-task-id');
    if (taskId) taskIds.push(taskId);
    return response;
  };
  /** The gateway's id of a task's response, or of its output item `index`. */
  const responseId = (taskId: string) => `resp_${taskId.slice('task_'.length)}`;
  const itemId = (taskId: string, kind: 'msg' | 'fc', index: number) =>
    `${kind}_${taskId.slice('task_'.length)}_${index}`;
  /** Each HTTP call the client made is one succeeded task with its usage and cost; the records, in call order. */
  const expectRecords = (calls: number) =>
    expectOneTaskPerCall({ api, apiKey, appId }, taskIds, { calls, endpoint: 'responses', prices: nanos });
  /** Every input item the upstream was sent, over all its Responses calls. */
  const itemsSent = () =>
    upstream.calls.flatMap((call) => (Array.isArray(call.body.input) ? (call.body.input as object[]) : []));

  const weather = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
  };

  beforeAll(async () => {
    await Promise.all([upstream.start(), broken.start()]);
    const env = testEnv({
      UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
      UPSTREAM_PRIMARY_API_KEY: 'upstream-secret',
      UPSTREAM_BROKEN_BASE_URL: broken.baseUrl,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    const baseURL = `${api.url}/v1`;
    client = new OpenAI({ apiKey, baseURL, maxRetries: 0, fetch: noting });
    provider = createOpenAI({ apiKey, baseURL, fetch: noting });
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await Promise.all([upstream.stop(), broken.stop()]);
  });

  beforeEach(() => {
    taskIds = [];
    upstream.reset();
    broken.reset();
  });

  it('sends the upstream’s /v1/responses what the client sent, less store and metadata, and answers with the gateway’s ids', async () => {
    const input = [{ role: 'user' as const, content: [{ type: 'input_text' as const, text: 'hello there' }] }];
    const response = await client.responses.create({
      model,
      instructions: 'be brief',
      input,
      max_output_tokens: 50,
      temperature: 0.2,
      metadata: { ticket: '42' },
      user: 'u-1',
    });
    expect(upstream.calls.map((call) => call.path)).toEqual(['/v1/responses']);
    expect(upstream.calls[0].body).toEqual({
      model: 'gpt-test',
      instructions: 'be brief',
      input,
      max_output_tokens: 50,
      temperature: 0.2,
      user: 'u-1',
      store: false,
    });
    const [taskId] = taskIds;
    expect(response).toMatchObject({
      id: responseId(taskId),
      object: 'response',
      status: 'completed',
      model,
      store: true,
      metadata: { ticket: '42' },
      temperature: 0.2,
      output: [{ type: 'message', id: itemId(taskId, 'msg', 0), role: 'assistant' }],
    });
    expect(response.output_text).toBe('echo: hello there');
    const [record] = await expectRecords(1);
    expect(record.usage).toMatchObject({
      prompt_tokens: response.usage!.input_tokens,
      completion_tokens: response.usage!.output_tokens,
    });
    expect(record.upstream).toEqual([expect.objectContaining({ route: 'primary:gpt-test', outcome: 'ok' })]);
    const task = await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey);
    expect(task.body.result).toEqual(JSON.parse(JSON.stringify({ ...response, output_text: undefined })));
  });

  it('relays the upstream’s stream in order, with the gateway’s ids and sequence numbers', async () => {
    const stream = await client.responses.create({ model, input: 'Name a colour.', stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(upstream.calls[0]).toMatchObject({
      path: '/v1/responses',
      body: { model: 'gpt-test', input: 'Name a colour.', stream: true, store: false },
    });
    const [taskId] = taskIds;
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...events.slice(4, -4).map(() => 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ response: { id: responseId(taskId), model, status: 'in_progress' } });
    const deltas = events.filter((event) => event.type === 'response.output_text.delta');
    expect(deltas.every((event) => event.item_id === itemId(taskId, 'msg', 0))).toBe(true);
    expect(deltas.map((event) => event.delta).join('')).toBe('echo: Name a colour.');
    const last = events[events.length - 1] as OpenAI.Responses.ResponseCompletedEvent;
    expect(last.response).toMatchObject({ id: responseId(taskId), output: [{ id: itemId(taskId, 'msg', 0) }] });
    await expectRecords(1);
    const task = await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey);
    expect(task.body.result).toEqual(JSON.parse(JSON.stringify(last.response)));
  });

  it('continues from previous_response_id by sending the conversation it names as items, without the gateway’s ids', async () => {
    const call = await client.responses.create({ model, input: 'Use get_weather for Paris.', tools: [weather] });
    const functionCall = call.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(functionCall).toMatchObject({ type: 'function_call', id: itemId(taskIds[0], 'fc', 0), name: 'get_weather' });
    const answer = await client.responses.create({
      model,
      previous_response_id: call.id,
      input: [{ type: 'function_call_output', call_id: functionCall.call_id, output: 'sunny, 21 °C' }],
      tools: [weather],
    });
    expect(answer.output_text).toBe('echo: Use get_weather for Paris.; get_weather returned sunny, 21 °C');
    expect(answer.previous_response_id).toBe(call.id);
    const second = upstream.calls[1].body;
    expect(second).not.toHaveProperty('previous_response_id');
    expect(second.input).toEqual([
      { role: 'user', content: 'Use get_weather for Paris.' },
      {
        type: 'function_call',
        status: 'completed',
        call_id: functionCall.call_id,
        name: 'get_weather',
        arguments: functionCall.arguments,
      },
      { type: 'function_call_output', call_id: functionCall.call_id, output: 'sunny, 21 °C' },
    ]);
    await expectRecords(2);
  });

  it('runs the Vercel AI SDK’s tool loop, plain and streamed, with its item references expanded for the upstream', async () => {
    const tools = {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: jsonSchema<{ city: string }>(weather.parameters as never),
        execute: async ({ city }) => `sunny in ${city}`,
      }),
    };
    const plain = await generateText({
      model: provider(model),
      prompt: 'Use get_weather for Rome.',
      tools,
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(plain.steps[0].toolCalls[0]).toMatchObject({ toolName: 'get_weather' });
    expect(plain.text).toMatch(/^echo: Use get_weather for Rome\.; get_weather returned "?sunny in /);
    expect(plain.response.id).toBe(responseId(taskIds[1]));
    const streamed = streamText({
      model: provider(model),
      prompt: 'Use get_weather for Lima.',
      tools,
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(await streamed.text).toMatch(/^echo: Use get_weather for Lima\.; get_weather returned "?sunny in /);
    expect(upstream.calls.map((call) => call.path)).toEqual(Array(4).fill('/v1/responses'));
    // The SDK sends its earlier call back by the gateway's id (an item_reference); the upstream gets the item itself.
    expect(itemsSent()).toContainEqual(expect.objectContaining({ type: 'function_call', name: 'get_weather' }));
    expect(itemsSent().filter((item) => 'id' in item || (item as { type?: string }).type === 'item_reference')).toEqual(
      [],
    );
    await expectRecords(4);
  });

  it('falls back from a failing Responses upstream to a chat-only route, translated, plain and streamed', async () => {
    broken.failNext({ times: 100, status: 500 });
    const fallback = 'x-chat-responses-fallback';
    const response = await client.responses.create({ model: fallback, instructions: 'be brief', input: 'hello' });
    expect(response).toMatchObject({ id: responseId(taskIds[0]), model: fallback, status: 'completed' });
    expect(response.output_text).toBe('echo: hello');
    const { data: stream, response: streamed } = await client.responses
      .create({ model: fallback, input: 'again', stream: true })
      .withResponse();
    // The SSE answer names the route that relays it: the one fallen back to, not the first one tried.
    expect(streamed.headers.get('x-gateway-route')).toBe('primary:gpt-test');
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events[events.length - 1]).toMatchObject({
      type: 'response.completed',
      response: { id: responseId(taskIds[1]), output: [{ id: itemId(taskIds[1], 'msg', 0) }] },
    });
    // Three tries each (UPSTREAM_RETRIES 2) on the Responses upstream, then the chat route.
    expect(broken.calls.map((call) => call.path)).toEqual(Array(6).fill('/v1/responses'));
    expect(upstream.calls.map((call) => [call.path, call.body.messages])).toEqual([
      [
        '/v1/chat/completions',
        [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello' },
        ],
      ],
      ['/v1/chat/completions', [{ role: 'user', content: 'again' }]],
    ]);
    const records = await expectRecords(2);
    const failed = expect.objectContaining({ route: 'broken:gpt-test', outcome: 'retryable', status: 500 });
    expect(records[0].upstream).toEqual([
      failed,
      failed,
      failed,
      expect.objectContaining({ route: 'primary:gpt-test', outcome: 'ok' }),
    ]);
  });
});
