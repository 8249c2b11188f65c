/**
 * What each tokenizer costs a process (libs/catalog/src/tokenizers): the first count's time (its tables loaded),
 * the heap they keep after a full GC, and counting speed on a 110,000-character text of English, Chinese and code.
 * Each tokenizer is measured in a process of its own, so one's tables do not weigh on the next.
 *
 *   npm run bench:tokenizers
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { type TokenizerName, tokenizerOf } from '@gateway/catalog';

const NAMES: TokenizerName[] = ['cl100k_base', 'o200k_base', 'qwen2'];
const TEXT = (
  'The quick brown fox jumps over the lazy dog. ' +
  '人工智能正在改变世界。' +
  'const total = items.map((item) => item.price * item.qty);\n'
).repeat(1000);

/** Heap used and resident set after a full GC. */
function memoryAfterGc(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc!();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

function measure(name: TokenizerName): void {
  const tokenizer = tokenizerOf(name);
  const before = memoryAfterGc();
  const started = performance.now();
  tokenizer.count('hello');
  const loadMs = performance.now() - started;
  const after = memoryAfterGc();
  const keptMb = (after.heap - before.heap) / 1e6;
  const rssMb = (after.rss - before.rss) / 1e6;
  tokenizer.count(TEXT);
  const runs = 20;
  const counting = performance.now();
  let tokens = 0;
  for (let i = 0; i < runs; i++) tokens = tokenizer.count(TEXT);
  const ms = (performance.now() - counting) / runs;
  const rate = TEXT.length / ms / 1000;
  process.stdout.write(
    `| ${name} | ${loadMs.toFixed(0)} | ${keptMb.toFixed(1)} | ${rssMb.toFixed(1)} | ${tokens} | ${ms.toFixed(1)} | ${rate.toFixed(1)} |\n`,
  );
}

const [, , only] = process.argv;
if (only) {
  measure(only as TokenizerName);
} else {
  process.stdout.write(
    `| tokenizer | first count ms (tables loaded) | heap kept MB | RSS added MB | tokens in ${TEXT.length} characters | ms a count | M characters/s |\n|---|---|---|---|---|---|---|\n`,
  );
  for (const name of NAMES) {
    const output = execFileSync(process.execPath, [...process.execArgv, __filename, name], { encoding: 'utf8' });
    process.stdout.write(output);
  }
}
