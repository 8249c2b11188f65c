import Ajv2020 from 'ajv/dist/2020';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { OpenAiFake } from '../fakes/openai-fake';

/**
 * The strict OpenAI fake (test/fakes/openai-fake.ts) against OpenAI's documented Chat Completions rules
 * (test/fakes/upstream-rules.ts), driven by the real openai SDK: what it refuses and how, and that its answers are
 * what the SDK and a schema expect. The gateway's suites trust these answers, so they are checked here first.
 */
describe('the strict OpenAI fake: chat completions', () => {
  const fake = new OpenAiFake({ delayMs: 0 });
  let openai: OpenAI;
  let compatible: OpenAI;

  const weather = {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
      strict: true,
    },
  };
  const time = {
    type: 'function' as const,
    function: {
      name: 'get_time',
      parameters: { type: 'object', properties: { zone: { type: 'string', minLength: 6 } }, required: ['zone'] },
    },
  };
  const user = (content: string) => [{ role: 'user' as const, content }];
  const post = (path: string, body: object) =>
    fetch(`${fake.rootUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    await fake.start();
    openai = new OpenAI({ apiKey: 'k', baseURL: fake.baseUrl, maxRetries: 0 });
    compatible = new OpenAI({ apiKey: 'k', baseURL: `${fake.rootUrl}/compatible-mode/v1`, maxRetries: 0 });
  });

  afterAll(() => fake.stop());

  describe('refuses what OpenAI refuses, with its error body', () => {
    const toolTurn = [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
    ];
    it.each([
      ['an unknown field', { foo: 1 }, null, null],
      ['n of 0', { n: 0 }, 'n', 'integer_below_min_value'],
      ['n of 129', { n: 129 }, 'n', 'integer_above_max_value'],
      ['a decimal n', { n: 1.5 }, 'n', 'invalid_type'],
      ['presence_penalty above 2', { presence_penalty: 2.5 }, 'presence_penalty', 'decimal_above_max_value'],
      ['frequency_penalty below -2', { frequency_penalty: -3 }, 'frequency_penalty', 'decimal_below_min_value'],
      ['a logit_bias above 100', { logit_bias: { '50256': 101 } }, 'logit_bias', 'invalid_value'],
      ['a logit_bias key that is no token id', { logit_bias: { abc: 1 } }, 'logit_bias', 'invalid_value'],
      ['top_logprobs above 20', { logprobs: true, top_logprobs: 21 }, 'top_logprobs', 'integer_above_max_value'],
      ['top_logprobs without logprobs', { top_logprobs: 2 }, 'top_logprobs', 'invalid_value'],
      ['json_object without the word json', { response_format: { type: 'json_object' } }, 'messages', null],
      [
        'a json_schema name with a space',
        { response_format: { type: 'json_schema', json_schema: { name: 'my schema', schema: { type: 'object' } } } },
        'response_format.json_schema.name',
        'invalid_value',
      ],
      [
        'a strict schema without additionalProperties: false',
        {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'p', strict: true, schema: { type: 'object', properties: {}, required: [] } },
          },
        },
        'response_format',
        'invalid_json_schema',
      ],
      [
        'a strict schema that leaves a property out of required',
        {
          response_format: {
            type: 'json_schema',
            json_schema: {
              name: 'p',
              strict: true,
              schema: {
                type: 'object',
                properties: { a: { type: 'string' }, b: { type: 'string' } },
                required: ['a'],
                additionalProperties: false,
              },
            },
          },
        },
        'response_format',
        'invalid_json_schema',
      ],
      [
        'a function name with a dot',
        { tools: [{ type: 'function', function: { name: 'get.weather' } }] },
        'tools[0].function.name',
        'invalid_value',
      ],
      [
        'a tool_choice naming no tool of the request',
        { tools: [weather], tool_choice: { type: 'function', function: { name: 'get_time' } } },
        'tool_choice',
        'invalid_value',
      ],
      ['a tool_choice without tools', { tool_choice: 'auto' }, 'tool_choice', null],
      ['parallel_tool_calls without tools', { parallel_tool_calls: false }, 'parallel_tool_calls', null],
      ['stream_options without stream', { stream_options: { include_usage: true } }, 'stream_options', 'invalid_value'],
      [
        'a tool message that answers no tool call',
        { messages: [...user('hi'), { role: 'tool', tool_call_id: 'call_1', content: '20' }] },
        'messages.[1].role',
        null,
      ],
      [
        'a tool message with an unknown tool_call_id',
        { messages: [...toolTurn, { role: 'tool', tool_call_id: 'call_2', content: '20' }] },
        'messages.[2].tool_call_id',
        null,
      ],
      ['tool calls left unanswered', { messages: [...toolTurn, ...user('and?')] }, 'messages.[1].role', null],
      [
        'an image part in a system message',
        { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] },
        'messages[0].content[0].type',
        'invalid_value',
      ],
      ['max_tokens for a reasoning model', { model: 'o3-mini', max_tokens: 5 }, 'max_tokens', 'unsupported_parameter'],
    ])('%s', async (_name, patch, param, code) => {
      const response = await post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: user('hi'), ...patch });
      expect(response.status).toBe(400);
      const { error } = await response.json();
      expect(error).toEqual({ message: expect.any(String), type: 'invalid_request_error', param, code });
    });
  });

  it('takes every field at its neutral value, the developer role and content-part arrays', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      ],
      n: 1,
      logprobs: false,
      presence_penalty: 0,
      frequency_penalty: 0,
      logit_bias: {},
      max_completion_tokens: 50,
      metadata: { run: 'x' },
      store: false,
      service_tier: 'auto',
      response_format: { type: 'text' },
      prompt_cache_key: 'k',
      safety_identifier: 'u1',
      verbosity: 'low',
    });
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: 'echo: hello',
      refusal: null,
      annotations: [],
    });
    expect(completion).toMatchObject({ service_tier: 'default', system_fingerprint: expect.stringMatching(/^fp_/) });
  });

  it('answers n choices, the later ones differing, with usage over all of them', async () => {
    const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: user('hello'), n: 3 });
    expect(completion.choices.map((choice) => [choice.index, choice.message.content])).toEqual([
      [0, 'echo: hello'],
      [1, 'echo: hello #2'],
      [2, 'echo: hello #3'],
    ]);
    // 11, 14 and 14 characters at 4 a token.
    expect(completion.usage).toMatchObject({ completion_tokens: 3 + 4 + 4 });
  });

  it('answers logprobs token by token, with the asked number of alternatives', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: user('logprobs please'),
      logprobs: true,
      top_logprobs: 2,
    });
    const { content } = completion.choices[0].logprobs!;
    expect(content!.map((entry) => entry.token).join('')).toBe(completion.choices[0].message.content);
    for (const entry of content!) {
      expect(entry.bytes).toEqual([...Buffer.from(entry.token)]);
      expect(entry.logprob).toBeLessThan(0);
      expect(entry.top_logprobs).toHaveLength(2);
      expect(entry.top_logprobs[0]).toEqual({ token: entry.token, logprob: entry.logprob, bytes: entry.bytes });
    }
  });

  it('cuts an answer at max_tokens with finish_reason length, and at a stop sequence with stop', async () => {
    const cut = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: user('a long one'),
      max_tokens: 2,
    });
    expect(cut.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'echo: a ' } });
    const stopped = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: user('one, two'),
      stop: [','],
    });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'echo: one' } });
  });

  it('calls the named or required tool with arguments valid against its schema', async () => {
    const ajv = new Ajv2020();
    const named = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: user('what time is it?'),
      tools: [weather, time],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    const [call] = named.choices[0].message.tool_calls!;
    expect(named.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { content: null } });
    expect(call).toMatchObject({
      id: expect.stringMatching(/^call_/),
      type: 'function',
      function: { name: 'get_time' },
    });
    const args = JSON.parse((call as { function: { arguments: string } }).function.arguments);
    expect(ajv.validate(time.function.parameters, args)).toBe(true);
    const required = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: user('hi'),
      tools: [weather, time],
      tool_choice: 'required',
    });
    expect(
      required.choices[0].message.tool_calls!.map((c) => (c as { function: { name: string } }).function.name),
    ).toEqual(['get_weather']);
  });

  it('with tool_choice auto, calls the tools the user names, then answers with what they returned', async () => {
    const first = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: user('use get_time and get_weather'),
      tools: [weather, time],
    });
    const calls = first.choices[0].message.tool_calls! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((call) => call.function.name)).toEqual(['get_weather', 'get_time']);
    const second = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        ...user('use get_time and get_weather'),
        first.choices[0].message,
        { role: 'tool', tool_call_id: calls[0].id, content: 'sunny' },
        { role: 'tool', tool_call_id: calls[1].id, content: 'noon' },
      ],
      tools: [weather, time],
    });
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop' });
    expect(second.choices[0].message.content).toBe(
      'echo: use get_time and get_weather; get_weather returned sunny; get_time returned noon',
    );
  });

  it("answers a json_schema format with an instance the SDK's zod helper parses", async () => {
    const Person = z.object({ name: z.string(), age: z.number().int().min(18), tags: z.array(z.string()) });
    const completion = await openai.chat.completions.parse({
      model: 'gpt-4o-mini',
      messages: user('a person'),
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect(completion.choices[0].message.parsed).toEqual({ name: 'name', age: 18, tags: [] });
  });

  it('streams a tool call as OpenAI does: its header first, then argument fragments, then the usage', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: user('weather?'),
      tools: [weather],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        {
          index: 0,
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
    });
    const fragments = chunks.slice(1, -2).map((chunk) => chunk.choices[0].delta.tool_calls![0]);
    expect(fragments.every((fragment) => fragment.index === 0 && fragment.id === undefined)).toBe(true);
    expect(JSON.parse(fragments.map((fragment) => fragment.function!.arguments).join(''))).toEqual({
      city: 'city',
      unit: 'c',
    });
    expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: expect.any(Number) } });
    // The SDK's own accumulator agrees.
    const final = await openai.chat.completions
      .stream({ model: 'gpt-4o-mini', messages: user('weather?'), tools: [weather] })
      .finalChatCompletion();
    expect(final.choices[0].message.tool_calls).toHaveLength(1);
  });

  describe("DashScope's compatible mode, by its own documentation", () => {
    it.each([
      ['max_completion_tokens', { max_completion_tokens: 10 }],
      ['the developer role', { messages: [{ role: 'developer', content: 'x' }, ...user('hi')] }],
      ['logit_bias', { logit_bias: { '1': 1 } }],
      ['user', { user: 'u1' }],
      ['n above 4', { n: 5 }],
      ['n above 1 with tools', { n: 2, tools: [weather] }],
      ['top_logprobs above 5', { logprobs: true, top_logprobs: 6 }],
      ['tool_choice required', { tools: [weather], tool_choice: 'required' }],
      ['temperature 2', { temperature: 2 }],
    ])('refuses %s with invalid_parameter_error', async (_name, patch) => {
      const response = await post('/compatible-mode/v1/chat/completions', {
        model: 'qwen-plus',
        messages: user('hi'),
        ...patch,
      });
      expect(response.status).toBe(400);
      expect((await response.json()).error).toMatchObject({
        type: 'invalid_request_error',
        code: 'invalid_parameter_error',
        message: expect.stringMatching(/^<400> InternalError\.Algo\.InvalidParameter: /),
      });
    });

    it('takes tools, json_schema, n up to 4 and logprobs, answering as compatible mode does', async () => {
      const tools = await compatible.chat.completions.create({
        model: 'qwen-plus',
        messages: user('weather?'),
        tools: [weather],
        tool_choice: 'auto',
        parallel_tool_calls: true,
      });
      expect(tools.choices[0].message).toEqual({ role: 'assistant', content: '', tool_calls: [expect.anything()] });
      expect(tools.system_fingerprint).toBeNull();
      const many = await compatible.chat.completions.create({
        model: 'qwen-plus',
        messages: user('json please'),
        n: 4,
        logprobs: true,
        top_logprobs: 5,
        response_format: { type: 'json_object' },
      });
      expect(many.choices).toHaveLength(4);
      expect(JSON.parse(many.choices[3].message.content!)).toEqual({ echo: 'json please' });
    });
  });
});

/**
 * The strict OpenAI fake's POST /v1/responses against OpenAI's documented Responses rules (OPENAI_RESPONSES_* in
 * test/fakes/upstream-rules.ts), driven by the openai SDK: the gateway passes Responses requests through to it, so
 * what it takes, refuses and streams is checked here first.
 */
describe('the strict OpenAI fake: responses', () => {
  const fake = new OpenAiFake({ delayMs: 0 });
  let openai: OpenAI;

  const weather = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
  };
  const post = (body: object) =>
    fetch(`${fake.baseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    await fake.start();
    openai = new OpenAI({ apiKey: 'k', baseURL: fake.baseUrl, maxRetries: 0 });
  });

  afterAll(() => fake.stop());

  it('answers a response object: the output text, usage in input and output tokens, the request echoed', async () => {
    const response = await openai.responses.create({
      model: 'gpt-4o-mini',
      instructions: 'be brief',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello' }] }],
      max_output_tokens: 64,
      store: false,
      metadata: { run: 'x' },
    });
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-4o-mini',
      instructions: 'be brief',
      max_output_tokens: 64,
      store: false,
      metadata: { run: 'x' },
      output: [{ type: 'message', role: 'assistant', status: 'completed' }],
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe('echo: hello');
    expect(response.usage).toEqual({
      input_tokens: expect.any(Number),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: response.usage!.input_tokens + 3,
    });
  });

  it('calls a function the user names with arguments valid against its schema, then answers with its output', async () => {
    const call = await openai.responses.create({
      model: 'gpt-4o-mini',
      input: 'get_weather for Oslo',
      tools: [weather],
    });
    const [item] = call.output as OpenAI.Responses.ResponseFunctionToolCall[];
    expect(item).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(new Ajv2020().validate(weather.parameters, JSON.parse(item.arguments))).toBe(true);
    const answer = await openai.responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'user', content: 'get_weather for Oslo' },
        { type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments },
        { type: 'function_call_output', call_id: item.call_id, output: 'sunny' },
      ],
      tools: [weather],
    });
    expect(answer.output_text).toBe('echo: get_weather for Oslo; get_weather returned sunny');
  });

  it('answers a json_schema text format with an instance of the schema, and says incomplete when cut', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    };
    const json = await openai.responses.create({
      model: 'gpt-4o-mini',
      input: 'a city',
      text: { format: { type: 'json_schema', name: 'city', schema, strict: true } },
    });
    expect(new Ajv2020().validate(schema, JSON.parse(json.output_text))).toBe(true);
    const cut = await openai.responses.create({
      model: 'gpt-4o-mini',
      input: 'a question long enough that its echo runs well past sixteen tokens of output, word after word',
      max_output_tokens: 16,
    });
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('streams the documented events, numbered, with obfuscation on deltas unless turned off', async () => {
    const collect = async (options: { include_obfuscation?: boolean } | undefined) => {
      const stream = await openai.responses.create({
        model: 'gpt-4o-mini',
        input: 'get_weather for Rome, please',
        tools: [weather],
        tool_choice: 'auto',
        stream: true,
        ...(options ? { stream_options: options } : {}),
      });
      const events = [];
      for await (const event of stream) events.push(event);
      return events;
    };
    const events = await collect(undefined);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      ...events.slice(3, -3).map(() => 'response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter((event) => event.type === 'response.function_call_arguments.delta');
    const done = events.find((event) => event.type === 'response.function_call_arguments.done')!;
    expect(deltas.map((event) => event.delta).join('')).toBe(done.arguments);
    expect(deltas[0]).toHaveProperty('obfuscation');
    const plain = await collect({ include_obfuscation: false });
    expect(plain.find((event) => event.type === 'response.function_call_arguments.delta')).not.toHaveProperty(
      'obfuscation',
    );
  });

  it('keeps nothing: a previous response, an item reference and an item id are not found', async () => {
    const previous = await post({ model: 'gpt-4o-mini', input: 'hi', previous_response_id: 'resp_1' });
    expect(previous.status).toBe(400);
    expect((await previous.json()).error).toEqual({
      message: "Previous response with id 'resp_1' not found.",
      type: 'invalid_request_error',
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
    const reference = await post({ model: 'gpt-4o-mini', input: [{ type: 'item_reference', id: 'msg_1' }] });
    expect(reference.status).toBe(404);
    expect((await reference.json()).error).toMatchObject({
      message: "Item with id 'msg_1' not found.",
      param: 'input',
    });
    const unstored = await post({
      model: 'gpt-4o-mini',
      store: false,
      input: [{ type: 'message', id: 'msg_2', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] }],
    });
    expect(unstored.status).toBe(404);
    expect((await unstored.json()).error.message).toMatch(/^Item with id 'msg_2' not found\. Items are not persisted/);
  });

  describe('refuses what OpenAI refuses, with its error body', () => {
    it.each([
      ['an unknown field', { seed: 1 }, 'seed', 'unknown_parameter'],
      ['a temperature above 2', { temperature: 3 }, 'temperature', 'decimal_above_max_value'],
      ['max_output_tokens under 16', { max_output_tokens: 8 }, 'max_output_tokens', 'integer_below_min_value'],
      ['top_logprobs above 20', { top_logprobs: 21 }, 'top_logprobs', 'integer_above_max_value'],
      [
        'more than 16 metadata pairs',
        { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
        'metadata',
        'object_above_max_properties',
      ],
      [
        'stream_options without stream',
        { stream_options: { include_obfuscation: false } },
        'stream_options',
        'invalid_value',
      ],
      [
        'an unknown field of an item',
        { input: [{ role: 'user', content: 'x', name: 'n' }] },
        'input[0].name',
        'unknown_parameter',
      ],
      [
        'an output_text part from the user',
        { input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }] },
        'input[0].content[0].type',
        'invalid_value',
      ],
      [
        'a function call output answering no call',
        { input: [{ type: 'function_call_output', call_id: 'call_9', output: 'x' }] },
        'input',
        null,
      ],
      [
        'a function name with a dot',
        { tools: [{ ...weather, name: 'get.weather' }] },
        'tools[0].name',
        'invalid_value',
      ],
      [
        'a chat-shaped tool',
        { tools: [{ type: 'function', function: { name: 'f' } }] },
        'tools[0].function',
        'unknown_parameter',
      ],
      [
        'a tool_choice naming no tool',
        { tools: [weather], tool_choice: { type: 'function', name: 'other' } },
        'tool_choice',
        'invalid_value',
      ],
      ['json_object without the word json', { text: { format: { type: 'json_object' } } }, 'input', null],
      [
        'a strict schema that leaves a property out of required',
        {
          text: {
            format: {
              type: 'json_schema',
              name: 'p',
              strict: true,
              schema: {
                type: 'object',
                properties: { a: { type: 'string' } },
                required: [],
                additionalProperties: false,
              },
            },
          },
        },
        'text.format.schema',
        'invalid_json_schema',
      ],
      [
        'reasoning effort for a model without reasoning',
        { reasoning: { effort: 'low' } },
        'reasoning.effort',
        'unsupported_parameter',
      ],
    ])('%s', async (_name, patch, param, code) => {
      const response = await post({ model: 'gpt-4o-mini', input: 'hi', ...patch });
      expect(response.status).toBe(400);
      const { error } = await response.json();
      expect(error).toEqual({ message: expect.any(String), type: 'invalid_request_error', param, code });
    });
  });
});
