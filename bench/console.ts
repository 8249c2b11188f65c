/// <reference lib="dom" />
/**
 * Console first-load benchmark: how long a first visit to the console takes in Chromium on this machine, and how
 * many bytes it transfers. Starts Redis, the embedded database and the api (with the console build from
 * `npm run build`), then opens /console/ in a fresh browser context (empty cache) several times. Time to interactive
 * is when the sign-in form's button can be clicked; bytes are what crossed the wire (compressed), split by kind.
 * Targets: under 1 s, under 300 KB of compressed JavaScript, and under 200 KB compressed in all (JavaScript, CSS and
 * the rest) for the first page. Asserts nothing.
 *
 * Run: npm run bench:console [-- --visits 10]
 */
import 'reflect-metadata';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { benchConfig, withEmbeddedStack } from './embedded-stack';
import { createApiApp } from '../apps/api/src/bootstrap';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

const { values } = parseArgs({ options: { visits: { type: 'string', default: '10' } } });
const VISITS = Number(values.visits);
const TARGET_MS = 1000;
const TARGET_JS_BYTES = 300 * 1024;
const TARGET_TOTAL_BYTES = 200 * 1024;

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  services.ensureBuilt(root);
  await withEmbeddedStack('console-bench', async (stack) => {
    const api = await createApiApp(benchConfig(stack, 'console-bench'));
    const browser = await chromium.launch({
      executablePath: services.ensureChromium(),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      await api.listen(0, '127.0.0.1');
      const url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
      const runs: { ms: number; js: number; css: number; other: number }[] = [];
      for (let visit = 0; visit < VISITS; visit++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        const bytes = { js: 0, css: 0, other: 0 };
        const kinds = new Map<string, keyof typeof bytes>();
        cdp.on('Network.responseReceived', ({ requestId, response }) => {
          kinds.set(
            requestId,
            response.mimeType.includes('javascript') ? 'js' : response.mimeType.includes('css') ? 'css' : 'other',
          );
        });
        cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
          bytes[kinds.get(requestId) ?? 'other'] += encodedDataLength;
        });
        const started = Date.now();
        await page.goto(`${url}/console/`);
        await page.getByRole('button', { name: 'Sign in' }).waitFor({ state: 'visible' });
        await page.waitForFunction(() => !document.querySelector('button[type=submit]')?.hasAttribute('disabled'));
        const ms = Date.now() - started;
        await page.waitForLoadState('networkidle');
        runs.push({ ms, ...bytes });
        await context.close();
      }
      const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
      const ms = median(runs.map((run) => run.ms));
      const js = median(runs.map((run) => run.js));
      const css = median(runs.map((run) => run.css));
      const other = median(runs.map((run) => run.other));
      const total = median(runs.map((run) => run.js + run.css + run.other));
      print(`console first load in Chromium, ${VISITS} visits with an empty cache (median):`);
      print(
        `  time to interactive (sign-in form usable): ${ms} ms (target < ${TARGET_MS} ms) ${ms < TARGET_MS ? 'ok' : 'MISSED'}`,
      );
      print(
        `  transferred: JavaScript ${(js / 1024).toFixed(1)} KB (target < ${TARGET_JS_BYTES / 1024} KB) ${js < TARGET_JS_BYTES ? 'ok' : 'MISSED'}, CSS ${(css / 1024).toFixed(1)} KB, other ${(other / 1024).toFixed(1)} KB`,
      );
      print(
        `  first page in all: ${(total / 1024).toFixed(1)} KB compressed (target < ${TARGET_TOTAL_BYTES / 1024} KB) ${total < TARGET_TOTAL_BYTES ? 'ok' : 'MISSED'}`,
      );
      print(`  slowest visit: ${Math.max(...runs.map((run) => run.ms))} ms`);
    } finally {
      await browser.close();
      await api.close();
    }
  });
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
