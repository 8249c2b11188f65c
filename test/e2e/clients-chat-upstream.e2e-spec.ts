import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, LanguageModel, stepCountIs, streamText, tool as aiTool } from 'ai';
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { OpenAiFake } from '../fakes/openai-fake';
import { createApplication, RunningApi, RunningWorker, startApi, startWorker, testEnv } from '../helpers/gateway';
import { expectOneTaskPerCall as expectOneCallPerTask } from '../helpers/client-calls';
import { checkedFetch } from '../helpers/contract';

// x-chat (test/fixtures/models.yaml) routes to the strict fake as OpenAI, model gpt-test, at 800 nanos a prompt
// token and 2,000 a completion token.
const PRICE = { prompt: 800, completion: 2_000 };

const Weather = z.object({ city: z.string().describe('the city') });
const Person = z.object({ name: z.string(), age: z.number().int().min(18), hobbies: z.array(z.string()) });
/** What the weather tool answers; the fake's text answer after a tool result repeats it. */
const FORECAST = 'sunny, 21 degrees';

/**
 * The client libraries as users run them, pointed at the gateway, with the strict OpenAI fake
 * (test/fakes/openai-fake.ts) as the upstream: tool-call round trips (also streamed) and structured output.
 * Each client is given only `baseURL`, the key and a fetch that notes each call's task id. The fake refuses what
 * OpenAI refuses, so a request the gateway mangled on the way fails here; what it received is compared with what
 * the client sent.
 */
describe('chat clients, unchanged, against the strict OpenAI fake as upstream', () => {
  const fake = new OpenAiFake({ delayMs: 0 });
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let appId: string;
  let baseURL: string;
  let taskIds: string[];
  /** Each client request's body as it reached the gateway. */
  let sent: Record<string, unknown>[];

  const noting: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
    const response = await checkedFetch(input, init);
    const taskId = response.headers.get('x-task-id');
    if (taskId) taskIds.push(taskId);
    return response;
  };

  beforeAll(async () => {
    await fake.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: fake.baseUrl });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    baseURL = `${api.url}/v1`;
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await fake.stop();
  });

  beforeEach(() => {
    fake.reset();
    taskIds = [];
    sent = [];
  });

  /** The upstream body of each call, in order. */
  const upstreamBodies = () => fake.calls.map((call) => call.body);

  /**
   * Every HTTP call the client made is one task, succeeded, its record holding the usage and the cost of that
   * usage; and the fake got the request the client sent, on its own model id: tools, tool_choice, response_format
   * and messages unchanged.
   */
  async function expectOneTaskPerCall(calls: number): Promise<void> {
    expect(fake.calls).toHaveLength(calls);
    sent.forEach((body, i) => {
      const { stream: _stream, stream_options: _options, ...asSent } = body;
      expect(upstreamBodies()[i]).toMatchObject({ ...asSent, model: 'gpt-test' });
    });
    await expectOneCallPerTask({ api, apiKey, appId }, taskIds, { calls, endpoint: 'chat.completions', prices: PRICE });
  }

  describe('openai 6', () => {
    let client: OpenAI;
    beforeAll(() => {
      client = new OpenAI({ apiKey, baseURL, fetch: noting, maxRetries: 0 });
    });

    it('makes a tool-call round trip: the model calls the tool, the client sends the result, the model answers', async () => {
      const tools = [zodFunction({ name: 'get_weather', parameters: Weather })];
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await client.chat.completions.create({ model: 'x-chat', messages, tools });
      expect(first.choices[0].finish_reason).toBe('tool_calls');
      const [call] = first.choices[0].message.tool_calls as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
      expect(Weather.parse(JSON.parse(call.function.arguments))).toEqual({ city: 'city' });
      messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: FORECAST });
      const second = await client.chat.completions.create({ model: 'x-chat', messages, tools });
      expect(second.choices[0].message.content).toContain(`get_weather returned ${FORECAST}`);
      // The tools went upstream as the SDK wrote them (strict, with their JSON Schema).
      expect(upstreamBodies()[0].tools).toEqual(JSON.parse(JSON.stringify(tools)));
      await expectOneTaskPerCall(2);
    });

    it('makes the round trip streamed with runTools, the tool call put together from its deltas', async () => {
      const runner = client.chat.completions.runTools({
        model: 'x-chat',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [zodFunction({ name: 'get_weather', parameters: Weather, function: () => FORECAST })],
        stream: true,
        stream_options: { include_usage: true },
      });
      const called: string[] = [];
      runner.on('functionToolCall', (call) => called.push(call.name));
      expect(await runner.finalContent()).toContain(`get_weather returned ${FORECAST}`);
      expect(called).toEqual(['get_weather']);
      await expectOneTaskPerCall(2);
    });

    it('parses structured output from zodResponseFormat with chat.completions.parse', async () => {
      const completion = await client.chat.completions.parse({
        model: 'x-chat',
        messages: [{ role: 'user', content: 'Invent a person.' }],
        response_format: zodResponseFormat(Person, 'person'),
      });
      expect(completion.choices[0].message.parsed).toEqual({ name: 'name', age: 18, hobbies: [] });
      expect(upstreamBodies()[0].response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: 'person', strict: true },
      });
      await expectOneTaskPerCall(1);
    });

    it('takes every field at its neutral value, passing on only what OpenAI takes', async () => {
      const completion = await client.chat.completions.create({
        model: 'x-chat',
        messages: [{ role: 'user', content: 'hello' }],
        n: 1,
        logprobs: false,
        presence_penalty: 0,
        frequency_penalty: 0,
        logit_bias: {},
        // Without tools, OpenAI refuses parallel_tool_calls (the fake too): the gateway must not pass it on.
        parallel_tool_calls: false,
      });
      expect(completion.choices[0].message.content).toBe('echo: hello');
      expect(upstreamBodies()[0]).not.toHaveProperty('parallel_tool_calls');
    });
  });

  describe('@langchain/openai ChatOpenAI', () => {
    let model: ChatOpenAI;
    const getWeather = langchainTool(() => FORECAST, {
      name: 'get_weather',
      description: 'The weather in a city',
      schema: Weather,
    });
    beforeAll(() => {
      model = new ChatOpenAI({ model: 'x-chat', apiKey, configuration: { baseURL, fetch: noting }, maxRetries: 0 });
    });

    it('makes a tool-call round trip with bindTools', async () => {
      const withTools = model.bindTools([getWeather]);
      const question = new HumanMessage('Weather in Paris?');
      const asked = await withTools.invoke([question]);
      expect(asked.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'city' } })]);
      const result: ToolMessage = await getWeather.invoke(asked.tool_calls![0]);
      const answer = await withTools.invoke([question, asked, result]);
      expect(answer.content).toContain(`get_weather returned ${FORECAST}`);
      await expectOneTaskPerCall(2);
    });

    it('makes the round trip streamed, the tool call put together from its chunks', async () => {
      const withTools = model.bindTools([getWeather]);
      const question = new HumanMessage('Weather in Paris?');
      let asked: AIMessageChunk | undefined;
      for await (const chunk of await withTools.stream([question])) asked = asked ? asked.concat(chunk) : chunk;
      expect(asked!.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'city' } })]);
      const result: ToolMessage = await getWeather.invoke(asked!.tool_calls![0]);
      let text = '';
      for await (const chunk of await withTools.stream([question, asked!, result])) text += chunk.content as string;
      expect(text).toContain(`get_weather returned ${FORECAST}`);
      await expectOneTaskPerCall(2);
    });

    it('returns a typed object from withStructuredOutput', async () => {
      const person = await model.withStructuredOutput(Person, { name: 'person' }).invoke('Invent a person.');
      expect(person).toEqual({ name: 'name', age: 18, hobbies: [] });
      await expectOneTaskPerCall(1);
    });

    it('streams a plain answer with its usage', async () => {
      let text = '';
      let usage: { input_tokens: number; output_tokens: number } | undefined;
      for await (const chunk of await model.stream('hello there')) {
        text += chunk.content as string;
        usage = chunk.usage_metadata ?? usage;
      }
      expect(text).toBe('echo: hello there');
      expect(usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: 5 });
      await expectOneTaskPerCall(1);
    });
  });

  describe.each([
    ['@ai-sdk/openai', true, (): LanguageModel => createOpenAI({ baseURL, apiKey, fetch: noting }).chat('x-chat')],
    [
      '@ai-sdk/openai-compatible',
      false,
      // Its documented setting for a server that takes json_schema, as the gateway does. Without it generateObject
      // sends json_object and no word "json", which OpenAI itself refuses (the fake does too).
      (): LanguageModel =>
        createOpenAICompatible({
          name: 'gateway',
          baseURL,
          apiKey,
          fetch: noting,
          supportsStructuredOutputs: true,
        }).chatModel('x-chat'),
    ],
  ])('ai 6 with %s', (_provider, streamsUsage, modelOf) => {
    const weatherTool = aiTool({
      description: 'The weather in a city',
      inputSchema: Weather,
      execute: async () => FORECAST,
    });

    it('makes a tool-call round trip with generateText', async () => {
      const result = await generateText({
        model: modelOf(),
        prompt: 'Weather in Paris?',
        tools: { get_weather: weatherTool },
        stopWhen: stepCountIs(3),
      });
      expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
      expect(result.steps[0].toolCalls).toEqual([
        expect.objectContaining({ toolName: 'get_weather', input: { city: 'city' } }),
      ]);
      expect(result.text).toContain(`get_weather returned ${FORECAST}`);
      await expectOneTaskPerCall(2);
    });

    it('makes the round trip streamed with streamText', async () => {
      const result = streamText({
        model: modelOf(),
        prompt: 'Weather in Paris?',
        tools: { get_weather: weatherTool },
        stopWhen: stepCountIs(3),
      });
      let text = '';
      for await (const delta of result.textStream) text += delta;
      expect(text).toContain(`get_weather returned ${FORECAST}`);
      expect((await result.steps).map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
      // @ai-sdk/openai asks for the usage chunk; @ai-sdk/openai-compatible only when told to (includeUsage).
      if (streamsUsage) expect((await result.totalUsage).outputTokens).toBeGreaterThan(0);
      await expectOneTaskPerCall(2);
    });

    it('returns a typed object from generateObject', async () => {
      const { object } = await generateObject({ model: modelOf(), schema: Person, prompt: 'Invent a person.' });
      expect(object).toEqual({ name: 'name', age: 18, hobbies: [] });
      expect(upstreamBodies()[0].response_format).toMatchObject({ type: 'json_schema' });
      await expectOneTaskPerCall(1);
    });
  });
});
