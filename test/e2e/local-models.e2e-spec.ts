import { join } from 'node:path';
import OpenAI from 'openai';
import { extendPrompt } from '@gateway/local-imaging';
import { createApplication, postJson, ROOT, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';
import { ensureLocalModels } from '../helpers/client-calls';
import { dataUri, editBody, solidPng } from '../helpers/images';

/** Ten (anchor, paraphrase, unrelated) triples written for this test. */
const TRIPLES: [string, string, string][] = [
  ['The cat is sleeping on the sofa.', 'A cat naps on the couch.', 'Interest rates rose again this quarter.'],
  [
    'How do I reset my password?',
    'What are the steps to change my login password?',
    'The train to Lyon leaves at noon.',
  ],
  ['The weather is sunny and warm today.', "It's a bright, hot day outside.", 'She plays the violin in an orchestra.'],
  [
    'He bought a new laptop for work.',
    'He purchased a new computer for his job.',
    'The river flooded the valley last spring.',
  ],
  [
    'The restaurant serves excellent pasta.',
    'That place makes really good spaghetti.',
    'Quantum computers use qubits.',
  ],
  ['Our flight was delayed by three hours.', 'The plane left three hours late.', 'Tomatoes need plenty of sunlight.'],
  [
    'The children are playing football in the park.',
    'Kids are kicking a ball around in the park.',
    'The invoice is due at the end of the month.',
  ],
  [
    'I need to see a doctor about my headache.',
    'My head hurts, so I should visit a physician.',
    'The museum opens a new exhibition on Monday.',
  ],
  [
    'The stock market fell sharply yesterday.',
    'Share prices dropped steeply the day before.',
    'My grandmother knits warm sweaters.',
  ],
  [
    'Please turn off the lights when you leave.',
    'Switch the lights off on your way out.',
    'Volcanoes can erupt without warning.',
  ],
];

const cosine = (a: number[], b: number[]) =>
  a.reduce((sum, x, i) => sum + x * b[i], 0) / (Math.hypot(...a) * Math.hypot(...b));

/** The embedded default (issue "local models"): a real chat model and a real embedding model on the worker's CPU. */
describe('local models through the gateway', () => {
  let api: RunningApi;
  let worker: { close(): Promise<void> };
  let client: OpenAI;
  let apiKey: string;

  beforeAll(async () => {
    await ensureLocalModels();
    const env = testEnv({
      LOCAL_MODELS: 'on',
      LOCAL_MODELS_DIR: join(ROOT, '.data', 'models'),
      // The rewrite is what is tested, not its deadline: a loaded machine's CPU model can take more than the 5 s.
      PROMPT_EXTEND_TIMEOUT_MS: 60_000,
    });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0, timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
  });

  const ask = (content: string) =>
    client.chat.completions.create({
      model: 'smollm2-135m-instruct',
      messages: [{ role: 'user', content }],
      temperature: 0,
      seed: 1,
      max_tokens: 48,
    });

  it.each([
    ['What is the capital of France?', /paris/i],
    ['What is the capital of Japan?', /tokyo/i],
    ['What is the capital of Germany?', /berlin/i],
  ])('answers "%s" coherently at temperature 0', async (question, expected) => {
    const answer = await ask(question);
    expect(answer.choices[0].message.content).toMatch(expected);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('streams chunks that add up to the non-streamed answer, with the usage chunk when asked', async () => {
    const question = 'Name three colours of the rainbow.';
    const whole = await ask(question);
    const stream = await client.chat.completions.create({
      model: 'smollm2-135m-instruct',
      messages: [{ role: 'user', content: question }],
      temperature: 0,
      seed: 1,
      max_tokens: 48,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const texts = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '');
    expect(texts.filter(Boolean).length).toBeGreaterThan(3);
    expect(texts.join('')).toBe(whole.choices[0].message.content);
    expect(chunks[chunks.length - 1].usage).toEqual(whole.usage);
    expect(
      chunks.every(
        (chunk) =>
          chunk.object === 'chat.completion.chunk' && chunk.model === 'smollm2-135m-instruct' && chunk.created > 0,
      ),
    ).toBe(true);
  });

  it('embeds paraphrases closer than unrelated sentences (at least 9 of 10 triples), at 384 and projected to 1024', async () => {
    const input = TRIPLES.flat();
    for (const dimensions of [384, 1024]) {
      const result = await client.embeddings.create({
        model: 'all-minilm-l6-v2',
        input,
        dimensions,
        encoding_format: 'float',
      });
      const vectors = result.data.map((item) => item.embedding);
      expect(vectors[0]).toHaveLength(dimensions);
      const margins = TRIPLES.map(
        (_, i) => cosine(vectors[3 * i], vectors[3 * i + 1]) - cosine(vectors[3 * i], vectors[3 * i + 2]),
      );
      expect(margins.filter((margin) => margin > 0.1).length).toBeGreaterThanOrEqual(9);
    }
  });

  it('rewrites an image-edit prompt with the local chat model when prompt_extend is on', async () => {
    const body = editBody(
      'x-image-edit-plus',
      [dataUri(await solidPng(64, 64, [20, 120, 200]))],
      'make it black and white',
      { prompt_extend: true, seed: 3 },
    );
    const response = await postJson(`${api.url}/v1/images/edits`, body, apiKey);
    expect(response.status).toBe(200);
    const rewritten = response.body.data[0].revised_prompt.split('\n\n')[0];
    expect(rewritten.length).toBeGreaterThan(0);
    expect(rewritten).not.toBe(extendPrompt('make it black and white', 1));
  });

  it('does not load the models on a worker started with LOCAL_MODELS=off', async () => {
    const env = testEnv({ LOCAL_MODELS: 'off' });
    const [plainApi, plainWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey: key } = await createApplication(plainApi);
      const response = await postJson(
        `${plainApi.url}/v1/chat/completions`,
        { model: 'smollm2-135m-instruct', messages: [{ role: 'user', content: 'hi' }] },
        key,
      );
      expect(response.status).toBe(500);
      expect(response.body.error.code).toBe('UpstreamError');
      expect(response.body.error.message).toContain('not loaded');
    } finally {
      await Promise.all([plainApi.close(), plainWorker.close()]);
    }
  });

  it("answers the shipped catalog's text-embedding-v4 locally while no DashScope upstream is configured, saying so", async () => {
    const env = testEnv({
      LOCAL_MODELS: 'on',
      LOCAL_MODELS_DIR: join(ROOT, '.data', 'models'),
      MODELS_CONFIG: join(ROOT, 'config', 'models.yaml'),
    });
    const [shippedApi, shippedWorker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey: key } = await createApplication(shippedApi);
      const response = await postJson(
        `${shippedApi.url}/v1/embeddings`,
        { model: 'text-embedding-v4', input: 'hello' },
        key,
      );
      expect(response.status).toBe(200);
      // Not DashScope's vectors: the body and the header name the local space, at the spec's default 1024.
      expect(response.body.model).toBe('text-embedding-v4-local');
      expect(response.headers.get('x-gateway-route')).toBe('local:all-minilm-l6-v2');
      expect(response.body.data[0].embedding).toHaveLength(1024);
    } finally {
      await Promise.all([shippedApi.close(), shippedWorker.close()]);
    }
  }, 180_000);
});
