// Memory and responsiveness under large image inputs: three concurrent image edits, each carrying one ~10 MB PNG
// as base64, while /health/live is polled. Prints the api's and the worker's resident memory (baseline and peak,
// from /proc) and the health probe's latency. Run with `npm run bench:image-memory`; figures only, no verdicts.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';

const API = process.env.BENCH_API_URL!;
const API_METRICS = process.env.BENCH_API_METRICS_URL!;
const KEY = process.env.BENCH_API_KEY!;
const PIDS = Object.fromEntries(
  (process.env.BENCH_PIDS ?? '')
    .split(',')
    .map((pair) => pair.split(':'))
    .map(([name, pid]) => [name, Number(pid)]),
);
const ROUNDS = Number(argument('--rounds') ?? 3);
const CONCURRENT = Number(argument('--concurrent') ?? 3);
const SAMPLE_MS = 25;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Random noise does not compress: 1750×1860 RGB is a PNG just under 10 MiB, the largest input the API accepts. */
async function largePng(seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(1750 * 1860 * 3);
  let state = seed;
  for (let i = 0; i < pixels.length; i++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    pixels[i] = state >>> 24;
  }
  return sharp(pixels, { raw: { width: 1750, height: 1860, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function probeHealth(stop: { done: boolean }, latencies: number[]): Promise<void> {
  while (!stop.done) {
    const started = performance.now();
    const response = await fetch(`${API}/health/live`);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
}

async function sampleMemory(stop: { done: boolean }, peaks: Record<string, number>): Promise<void> {
  while (!stop.done) {
    for (const name of ['api', 'worker']) peaks[name] = Math.max(peaks[name] ?? 0, rssMb(PIDS[name]));
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
}

/** prom-client resets its event-loop delay histogram on every scrape: read once before a round, once after. */
async function eventLoopLag(): Promise<{ max: number; p99: number }> {
  const text = await (await fetch(`${API_METRICS}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { max: value('nodejs_eventloop_lag_max_seconds'), p99: value('nodejs_eventloop_lag_p99_seconds') };
}

async function edit(image: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${API}/v1/images/edits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'x-image-edit-plus',
      input: { messages: [{ role: 'user', content: [{ image }, { text: 'convert to black and white' }] }] },
      parameters: { prompt_extend: false },
    }),
  });
  const text = await response.text();
  if (response.status !== 200) console.log(`  ${response.status}: ${text.slice(0, 300)}`);
  return { status: response.status, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const images = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => largePng(i + 1)));
  const payloads = images.map((png) => `data:image/png;base64,${png.toString('base64')}`);
  console.log(
    `inputs: ${CONCURRENT} PNGs of ${images.map((png) => (png.length / 1024 / 1024).toFixed(2)).join(', ')} MiB (1750×1860), ${(payloads[0].length / 1024 / 1024).toFixed(1)} MiB each as base64`,
  );
  console.log(`baseline RSS: api ${rssMb(PIDS.api).toFixed(0)} MB, worker ${rssMb(PIDS.worker).toFixed(0)} MB\n`);
  for (let round = 1; round <= ROUNDS; round++) {
    const stop = { done: false };
    const peaks: Record<string, number> = {};
    const health: number[] = [];
    await eventLoopLag();
    const probes = Promise.all([probeHealth(stop, health), sampleMemory(stop, peaks)]);
    const results = await Promise.all(payloads.map((payload) => edit(payload)));
    stop.done = true;
    await probes;
    const lag = await eventLoopLag();
    console.log(
      `round ${round}: statuses ${results.map((r) => r.status).join(',')}; request ms ${results.map((r) => r.ms.toFixed(0)).join(', ')}; ` +
        `peak RSS api ${peaks.api.toFixed(0)} MB, worker ${peaks.worker.toFixed(0)} MB; ` +
        `/health/live (${health.length} probes) p50 ${percentile(health, 50).toFixed(1)} ms, p99 ${percentile(health, 99).toFixed(1)} ms, max ${Math.max(...health).toFixed(1)} ms; ` +
        `api event-loop delay p99 ${lag.p99.toFixed(1)} ms, max ${lag.max.toFixed(1)} ms`,
    );
  }
  console.log(`\nafter: RSS api ${rssMb(PIDS.api).toFixed(0)} MB, worker ${rssMb(PIDS.worker).toFixed(0)} MB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
