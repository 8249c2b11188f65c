import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, LanguageModel, stepCountIs, streamText, tool as aiTool } from 'ai';
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { createApplication, ROOT, RunningApi, RunningWorker, startApi, startWorker, testEnv } from '../helpers/gateway';
import { ensureLocalModels, expectOneTaskPerCall } from '../helpers/client-calls';
import { checkedFetch } from '../helpers/contract';

const MODEL = 'smollm2-135m-instruct';
const FREE = { prompt: 0, completion: 0 };
const Weather = z.object({ city: z.string().describe('the city') });
// Within what the local grammar enforces (docs/decisions/local-engine.md): lengths and counts bound the tokens.
const Person = z.object({
  name: z.string().max(20),
  age: z.number().int(),
  hobbies: z.array(z.string().max(20)).max(3),
});
const FORECAST = 'sunny, 21 degrees';
const QUESTION = 'What is the weather in Paris?';
// Inference shares the machine's two cores with other suites; a call can take tens of seconds.
const SLOW = 600_000;

/**
 * The client libraries as users run them, pointed at the gateway, with SmolLM2-135M on the worker's CPU as the
 * model (the local engine: libs/providers/src/local/chat): tool-call round trips (also streamed) and structured
 * output. Greedy (temperature 0) and short, so the answers are the same run to run. The model's answers are small
 * and plain; what is checked is that every client gets what it asked for in the shape it expects: a call of the
 * offered tool with arguments valid for its schema, a text answer once the result is in, an object of the schema.
 */
describe('chat clients, unchanged, against the local engine', () => {
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let appId: string;
  let baseURL: string;
  let taskIds: string[];

  const noting: typeof fetch = async (input, init) => {
    const response = await checkedFetch(input, init);
    const taskId = response.headers.get('x-task-id');
    if (taskId) taskIds.push(taskId);
    return response;
  };

  beforeAll(async () => {
    await ensureLocalModels();
    const env = testEnv({ LOCAL_MODELS: 'on', LOCAL_MODELS_DIR: join(ROOT, '.data', 'models') });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey, appId } = await createApplication(api));
    baseURL = `${api.url}/v1`;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
  });

  beforeEach(() => {
    taskIds = [];
  });

  /** Each HTTP call the client made is one succeeded task, with its usage (the local model costs nothing). */
  const expectCallsRecorded = (calls: number) =>
    expectOneTaskPerCall({ api, apiKey, appId }, taskIds, { calls, endpoint: 'chat.completions', prices: FREE });

  describe('openai 6', () => {
    let client: OpenAI;
    beforeAll(() => {
      client = new OpenAI({ apiKey, baseURL, fetch: noting, maxRetries: 0, timeout: SLOW });
    });

    it(
      'makes a tool-call round trip: the model calls the tool, the client sends the result, the model answers',
      async () => {
        const tools = [zodFunction({ name: 'get_weather', parameters: Weather })];
        const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
        const settings = { model: MODEL, tools, temperature: 0, max_tokens: 40 };
        const first = await client.chat.completions.create({ ...settings, messages });
        expect(first.choices[0].finish_reason).toBe('tool_calls');
        const [call] = first.choices[0].message.tool_calls as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
        expect(call.id).toMatch(/^call_/);
        expect(call.function.name).toBe('get_weather');
        expect(Weather.parse(JSON.parse(call.function.arguments))).toEqual({ city: 'Paris' });
        messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: FORECAST });
        const second = await client.chat.completions.create({ ...settings, messages });
        expect(second.choices[0].message.tool_calls).toBeUndefined();
        expect(second.choices[0].message.content).toMatch(/sunny/i);
        await expectCallsRecorded(2);
      },
      SLOW,
    );

    it(
      'makes the round trip streamed with runTools, the tool call put together from its deltas',
      async () => {
        const runner = client.chat.completions.runTools({
          model: MODEL,
          messages: [{ role: 'user', content: QUESTION }],
          tools: [zodFunction({ name: 'get_weather', parameters: Weather, function: () => FORECAST })],
          temperature: 0,
          max_tokens: 40,
          stream: true,
          stream_options: { include_usage: true },
        });
        const called: { name: string; arguments: string }[] = [];
        runner.on('functionToolCall', (call) => called.push(call));
        expect(await runner.finalContent()).toMatch(/sunny/i);
        expect(called).toHaveLength(1);
        expect(called[0].name).toBe('get_weather');
        expect(Weather.parse(JSON.parse(called[0].arguments))).toEqual({ city: 'Paris' });
        expect((await runner.totalUsage()).completion_tokens).toBeGreaterThan(0);
        await expectCallsRecorded(2);
      },
      SLOW,
    );

    it(
      'parses structured output from zodResponseFormat with chat.completions.parse',
      async () => {
        const completion = await client.chat.completions.parse({
          model: MODEL,
          messages: [{ role: 'user', content: 'Invent a person: a name, an age and up to three hobbies.' }],
          response_format: zodResponseFormat(Person, 'person'),
          temperature: 0,
          max_tokens: 120,
        });
        expect(completion.choices[0].finish_reason).toBe('stop');
        const person = completion.choices[0].message.parsed;
        expect(Person.parse(person)).toEqual(person);
        await expectCallsRecorded(1);
      },
      SLOW,
    );
  });

  describe('@langchain/openai ChatOpenAI', () => {
    let model: ChatOpenAI;
    const getWeather = langchainTool(() => FORECAST, {
      name: 'get_weather',
      description: 'The weather in a city',
      schema: Weather,
    });
    beforeAll(() => {
      model = new ChatOpenAI({
        model: MODEL,
        apiKey,
        temperature: 0,
        maxTokens: 40,
        configuration: { baseURL, fetch: noting },
        maxRetries: 0,
      });
    });

    it(
      'makes a tool-call round trip with bindTools',
      async () => {
        const withTools = model.bindTools([getWeather]);
        const question = new HumanMessage(QUESTION);
        const asked = await withTools.invoke([question]);
        expect(asked.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'Paris' } })]);
        const result: ToolMessage = await getWeather.invoke(asked.tool_calls![0]);
        const answer = await withTools.invoke([question, asked, result]);
        expect(answer.tool_calls).toEqual([]);
        expect(answer.content).toMatch(/sunny/i);
        await expectCallsRecorded(2);
      },
      SLOW,
    );

    it(
      'makes the round trip streamed, the tool call put together from its chunks',
      async () => {
        const withTools = model.bindTools([getWeather]);
        const question = new HumanMessage(QUESTION);
        let asked: AIMessageChunk | undefined;
        for await (const chunk of await withTools.stream([question])) asked = asked ? asked.concat(chunk) : chunk;
        expect(asked!.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'Paris' } })]);
        expect(asked!.usage_metadata?.output_tokens).toBeGreaterThan(0);
        const result: ToolMessage = await getWeather.invoke(asked!.tool_calls![0]);
        let text = '';
        for await (const chunk of await withTools.stream([question, asked!, result])) text += chunk.content as string;
        expect(text).toMatch(/sunny/i);
        await expectCallsRecorded(2);
      },
      SLOW,
    );

    it(
      'returns a typed object from withStructuredOutput',
      async () => {
        // A longer answer than the tool calls need.
        const structured = new ChatOpenAI({
          model: MODEL,
          apiKey,
          temperature: 0,
          maxTokens: 120,
          configuration: { baseURL, fetch: noting },
          maxRetries: 0,
        }).withStructuredOutput(Person, { name: 'person' });
        const invented = await structured.invoke('Invent a person: a name, an age and up to three hobbies.');
        expect(Person.parse(invented)).toEqual(invented);
        await expectCallsRecorded(1);
      },
      SLOW,
    );
  });

  describe.each([
    ['@ai-sdk/openai', (): LanguageModel => createOpenAI({ baseURL, apiKey, fetch: noting }).chat(MODEL)],
    [
      '@ai-sdk/openai-compatible',
      // Its documented setting for a server that takes json_schema, as the gateway does.
      (): LanguageModel =>
        createOpenAICompatible({
          name: 'gateway',
          baseURL,
          apiKey,
          fetch: noting,
          supportsStructuredOutputs: true,
          includeUsage: true,
        }).chatModel(MODEL),
    ],
  ])('ai 6 with %s', (_provider, modelOf) => {
    const weatherTool = aiTool({
      description: 'The weather in a city',
      inputSchema: Weather,
      execute: async () => FORECAST,
    });
    const settings = { temperature: 0, maxOutputTokens: 40, maxRetries: 0 };

    it(
      'makes a tool-call round trip with generateText',
      async () => {
        const result = await generateText({
          model: modelOf(),
          prompt: QUESTION,
          tools: { get_weather: weatherTool },
          stopWhen: stepCountIs(3),
          ...settings,
        });
        expect(result.steps).toHaveLength(2);
        expect(result.steps[0].finishReason).toBe('tool-calls');
        expect(result.steps[0].toolCalls).toEqual([
          expect.objectContaining({ toolName: 'get_weather', input: { city: 'Paris' } }),
        ]);
        expect(result.text).toMatch(/sunny/i);
        await expectCallsRecorded(2);
      },
      SLOW,
    );

    it(
      'makes the round trip streamed with streamText',
      async () => {
        const result = streamText({
          model: modelOf(),
          prompt: QUESTION,
          tools: { get_weather: weatherTool },
          stopWhen: stepCountIs(3),
          ...settings,
        });
        let text = '';
        for await (const delta of result.textStream) text += delta;
        expect(text).toMatch(/sunny/i);
        const steps = await result.steps;
        expect(steps).toHaveLength(2);
        expect(steps[0].toolCalls).toEqual([
          expect.objectContaining({ toolName: 'get_weather', input: { city: 'Paris' } }),
        ]);
        expect((await result.totalUsage).outputTokens).toBeGreaterThan(0);
        await expectCallsRecorded(2);
      },
      SLOW,
    );

    it(
      'returns a typed object from generateObject',
      async () => {
        const { object } = await generateObject({
          model: modelOf(),
          schema: Person,
          prompt: 'Invent a person: a name, an age and up to three hobbies.',
          ...settings,
          maxOutputTokens: 120,
        });
        expect(Person.parse(object)).toEqual(object);
        await expectCallsRecorded(1);
      },
      SLOW,
    );
  });
});
