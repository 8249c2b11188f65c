import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { EnvSource } from '@gateway/common';
import { OpenAIEmbeddings } from '@langchain/openai';
import { cosineSimilarity, embed, embedMany } from 'ai';
import { join } from 'node:path';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import { createApplication, ROOT, RunningApi, RunningWorker, startApi, startWorker, testEnv } from '../helpers/gateway';
import { ensureLocalModels, expectOneTaskPerCall } from '../helpers/client-calls';
import { checkedFetch } from '../helpers/contract';

/** Short, varied sentences, different from each other, as a document set is. */
function documents(count: number): string[] {
  const subjects = [
    'The river',
    'A small cat',
    'Our team',
    'The old train',
    'My neighbour',
    'This recipe',
    'The market',
  ];
  const verbs = ['crosses', 'watches', 'builds', 'leaves', 'remembers', 'needs', 'opens'];
  const objects = ['the valley at dawn', 'a quiet garden', 'new software', 'the city early', 'every birthday'];
  return Array.from(
    { length: count },
    (_, i) => `${subjects[i % 7]} ${verbs[(i >> 1) % 7]} ${objects[i % 5]}, note ${i}.`,
  );
}

interface Target {
  name: string;
  model: string;
  /** The vector length when a client asks for none: the catalog's default_dimensions. */
  dimensions: number;
  /** Nanos a token (the catalog's per_1k_input_tokens × 10^9 / 1000). */
  nanosPerToken: number;
  start(): Promise<EnvSource>;
  stop(): Promise<void>;
  /** The vector the target gives `text`, when it is known in advance. */
  expected?(text: string): number[];
}

const fake = new OpenAiFake();

const TARGETS: Target[] = [
  {
    name: 'the local engine',
    model: 'all-minilm-l6-v2',
    dimensions: 384,
    nanosPerToken: 0,
    async start() {
      await ensureLocalModels();
      return {
        LOCAL_MODELS: 'on',
        LOCAL_MODELS_DIR: join(ROOT, '.data', 'models'),
        // On this 2-core machine shared with other processes, two inference threads took ~150 ms a text and one
        // ~8 ms (100 short texts through LocalModelHost, all-MiniLM-L6-v2): llama.cpp's threads wait on each other.
        LOCAL_MODEL_THREADS: 1,
      };
    },
    async stop() {},
  },
  {
    // text-embedding-v4 is DashScope's compatible mode to the fake: 10 inputs a call, so every request goes in parts.
    name: 'the strict OpenAI fake as upstream',
    model: 'text-embedding-v4',
    dimensions: 1024,
    nanosPerToken: 500,
    async start() {
      await fake.start();
      return { UPSTREAM_PRIMARY_BASE_URL: fake.baseUrl };
    },
    stop: () => fake.stop(),
    expected: (text) => fakeVector(text, 1024),
  },
];

/** The client libraries as users run them: only `baseURL`, the key and a fetch that notes each call's task id. */
describe.each(TARGETS)('embedding clients, unchanged, against $name', (target) => {
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;
  let appId: string;
  let taskIds: string[];

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
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await target.stop();
  });

  beforeEach(() => {
    taskIds = [];
  });
  /** Each HTTP call the client made is one task record, succeeded, with its usage and its cost. */
  async function expectOneRecordPerCall(calls: number): Promise<{ promptTokens: number }[]> {
    const records = await expectOneTaskPerCall({ api, apiKey, appId }, taskIds, {
      calls,
      endpoint: 'embeddings',
      prices: { prompt: target.nanosPerToken },
      completions: false,
    });
    return records.map((record) => ({ promptTokens: record.usage!.prompt_tokens }));
  }

  /** The vectors are the target's for each text, in order. */
  async function expectVectorsOf(texts: string[], vectors: number[][]): Promise<void> {
    expect(vectors).toHaveLength(texts.length);
    expect(vectors.every((vector) => vector.length === target.dimensions)).toBe(true);
    if (target.expected) {
      vectors.forEach((vector, i) => expect(vector).toEqual(target.expected!(texts[i])));
      return;
    }
    // The local model's own vectors: a few texts embedded alone match their place in the batch.
    const provider = createOpenAI({ baseURL: `${api.url}/v1`, apiKey });
    for (const i of [0, Math.floor(texts.length / 2), texts.length - 1]) {
      const alone = await embed({ model: provider.embedding(target.model), value: texts[i] });
      expect(cosineSimilarity(alone.embedding, vectors[i])).toBeCloseTo(1, 4);
    }
  }

  it('embeds 300 texts with the AI SDK embedMany through @ai-sdk/openai: one call, one task', async () => {
    const texts = documents(300);
    const provider = createOpenAI({ baseURL: `${api.url}/v1`, apiKey, fetch: noting });
    const result = await embedMany({ model: provider.embedding(target.model), values: texts });
    const [task] = await expectOneRecordPerCall(1);
    expect(result.usage.tokens).toBe(task.promptTokens);
    await expectVectorsOf(texts, result.embeddings);
  }, 120_000);

  it('embeds 300 texts with the AI SDK embedMany through @ai-sdk/openai-compatible: one call, one task', async () => {
    const texts = documents(300);
    const provider = createOpenAICompatible({
      name: 'gateway',
      baseURL: `${api.url}/v1`,
      apiKey,
      fetch: noting,
    });
    const result = await embedMany({ model: provider.embeddingModel(target.model), values: texts });
    const [task] = await expectOneRecordPerCall(1);
    expect(result.usage.tokens).toBe(task.promptTokens);
    await expectVectorsOf(texts, result.embeddings);
  }, 120_000);

  it('embeds 1,000 texts with LangChain OpenAIEmbeddings on its defaults: a task per request it sends', async () => {
    const texts = documents(1000);
    const embeddings = new OpenAIEmbeddings({
      model: target.model,
      apiKey,
      configuration: { baseURL: `${api.url}/v1`, fetch: noting },
    });
    const vectors = await embeddings.embedDocuments(texts);
    // Its default batchSize is 512: two requests.
    await expectOneRecordPerCall(Math.ceil(1000 / 512));
    await expectVectorsOf(texts, vectors);
  }, 180_000);
});
