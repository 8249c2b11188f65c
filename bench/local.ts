/**
 * Local model benchmark: how fast the real local models (scripts/models.js) run on this machine's CPU through
 * LocalModelHost, i.e. with the worker-thread hop included.
 *
 * Chat: prompt processing (prompt tokens over the time to the first streamed text) and generation (tokens after
 * the first over the time after it), at temperature 0 for a short and a long prompt. Embeddings: texts per second
 * one per call and in batches of 10 short sentences. Prints figures; asserts nothing.
 *
 * Run it with `node -r ts-node/register/transpile-only bench/local.ts [--runs N] [--threads N] [--max-tokens N]`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalChatRequest, LocalModelHost } from '../libs/providers/src/local/models/local-model-host';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureModels } = require('../scripts/models.js') as {
  ensureModels: (options: { root: string }) => Promise<{ chatModelPath: string; embeddingModelPath: string }>;
};

const SENTENCES = [
  'The cat is sleeping on the sofa.',
  'A man is playing the guitar.',
  'How do I reset my password?',
  'The train to London was delayed by an hour.',
  'Children are playing football in the park.',
  'The company reported record profits this quarter.',
  'She is cooking pasta in the kitchen.',
  'Drinking water is important for your health.',
  'The museum opens at nine in the morning.',
  'Penguins live in the Southern Hemisphere.',
];

const LONG_PROMPT = `Summarise the following notes in two sentences.\n\n${Array.from(
  { length: 12 },
  (_, i) =>
    `Note ${i + 1}: the team met on day ${i + 1} to review the release plan, the open bugs and the test results, and agreed on the next steps.`,
).join('\n')}`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      threads: { type: 'string' },
      'max-tokens': { type: 'string', default: '128' },
    },
  });
  const runs = Number(values.runs);
  const maxTokens = Number(values['max-tokens']);
  const threads = values.threads ? Number(values.threads) : undefined;

  const models = await ensureModels({ root: path.resolve(__dirname, '..') });
  let started = performance.now();
  const host = await LocalModelHost.start({ ...models, threads });
  console.log(`models loaded in ${ms(performance.now() - started)} (threads: ${threads ?? 'default'})`);

  try {
    for (const [label, prompt] of [
      ['short prompt', 'Tell me a story about a dragon.'],
      ['long prompt', LONG_PROMPT],
    ] as const) {
      await chatOnce(host, { messages: [{ role: 'user', content: prompt }], temperature: 0, maxTokens: 8 }); // warm-up
      const rows = [];
      for (let i = 0; i < runs; i++)
        rows.push(await chatOnce(host, { messages: [{ role: 'user', content: prompt }], temperature: 0, maxTokens }));
      const prompt_ = median(rows.map((row) => row.promptPerSecond));
      const generation = median(rows.map((row) => row.generationPerSecond));
      console.log(
        `chat, ${label}: ${rows[0].promptTokens} prompt tokens, ${rows[0].completionTokens} generated; ` +
          `prompt processing ${prompt_.toFixed(0)} tokens/s, generation ${generation.toFixed(1)} tokens/s, ` +
          `time to first text ${ms(median(rows.map((row) => row.firstTextMs)))} (median of ${runs})`,
      );
    }

    await host.embed(SENTENCES); // warm-up
    const singles = Math.max(50, runs * 20);
    started = performance.now();
    for (let i = 0; i < singles; i++) await host.embed([SENTENCES[i % SENTENCES.length]]);
    const single = singles / ((performance.now() - started) / 1000);
    const batches = Math.max(10, runs * 5);
    started = performance.now();
    for (let i = 0; i < batches; i++) await host.embed(SENTENCES);
    const batched = (batches * SENTENCES.length) / ((performance.now() - started) / 1000);
    console.log(
      `embeddings (${host.embeddingDimensions} dims): ${single.toFixed(0)} texts/s one per call, ${batched.toFixed(0)} texts/s in batches of ${SENTENCES.length}`,
    );
  } finally {
    await host.close();
  }
}

async function chatOnce(host: LocalModelHost, request: LocalChatRequest) {
  const started = performance.now();
  let firstText = 0;
  const result = await host.chat(request, () => {
    firstText ||= performance.now();
  });
  const ended = performance.now();
  firstText ||= ended;
  return {
    ...result,
    firstTextMs: firstText - started,
    promptPerSecond: result.promptTokens / ((firstText - started) / 1000),
    generationPerSecond: (result.completionTokens - 1) / Math.max((ended - firstText) / 1000, 1e-6),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(0)} ms`;

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
