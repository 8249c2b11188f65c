/**
 * Gateway overhead benchmark: the latency and throughput the gateway adds on top of its upstream.
 *
 * Calls the fake OpenAI upstream directly and through the gateway (api → BullMQ → worker → upstream → reply
 * channel → api) with the same embeddings request, one request at a time (unloaded latency) and then under load
 * with autocannon in a separate process. Prints figures and the targets beside them; asserts nothing.
 *
 * Run it with `npm run bench:overhead` (scripts/bench.js starts the services and sets the BENCH_* variables).
 * Options: --requests N (sequential requests per target, 2000), --warmup N (500), --connections N (50),
 * --duration S (10).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { Agent, request } from 'undici';

const TARGETS = { loadRps: 1000, addedP50Ms: 2, addedP99Ms: 8 };
const BODY = JSON.stringify({ model: 'text-embedding-v4', input: 'the quick brown fox', dimensions: 256 });

interface Options {
  requests: number;
  warmup: number;
  connections: number;
  duration: number;
}

interface Target {
  name: string;
  url: string;
  authorization: string;
}

interface Sample {
  ms: number;
  status: number;
  overheadHeader?: string;
}

interface Stats {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/** The parts of autocannon's --json result this bench reads. */
interface AutocannonResult {
  duration: number;
  requests: { average: number; total: number; sent: number };
  latency: { p50: number; p99: number; average: number; max: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}

/** One histogram's series summed over its labels: cumulative bucket counts by upper bound, sum and count. */
interface Histogram {
  buckets: Map<number, number>;
  sum: number;
  count: number;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through \`npm run bench:overhead\``);
  return value;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '2000' },
      warmup: { type: 'string', default: '500' },
      connections: { type: 'string', default: '50' },
      duration: { type: 'string', default: '10' },
    },
    strict: true,
    allowPositionals: false,
  });
  const count = (flag: keyof typeof values, min: number): number => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be a whole number ≥ ${min}`);
    return n;
  };
  return { requests: count('requests', 1), warmup: count('warmup', 0), connections: count('connections', 1), duration: count('duration', 1) };
}

// ---------------------------------------------------------------------------------------------------------------
// Unloaded latency

const agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });

/** One request, timed from send to the last byte of the body. */
async function timeOne(target: Target): Promise<Sample> {
  const start = process.hrtime.bigint();
  const response = await request(target.url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', authorization: target.authorization },
    body: BODY,
  });
  await response.body.arrayBuffer();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const overhead = response.headers['x-gateway-overhead-ms'];
  return { ms, status: response.statusCode, overheadHeader: Array.isArray(overhead) ? overhead[0] : overhead };
}

async function sequential(target: Target, count: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < count; i++) samples.push(await timeOne(target));
  return samples;
}

/** Nearest-rank percentiles over the samples. */
function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: sorted.reduce((s, v) => s + v, 0) / sorted.length };
}

// ---------------------------------------------------------------------------------------------------------------
// Load (autocannon in its own process, so the load generator does not share an event loop with the timer)

function autocannon(target: Target, opts: Options): Promise<AutocannonResult> {
  const bin = path.resolve(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const args = [
    bin, '--json', '-c', String(opts.connections), '-d', String(opts.duration), '-m', 'POST',
    // `name=value`: autocannon splits at the first ':' or '=' and would keep the space after a ':'.
    '-H', 'content-type=application/json', '-H', `authorization=${target.authorization}`,
    '-b', BODY, target.url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        resolve(JSON.parse(stdout) as AutocannonResult);
      } catch (error) {
        reject(new Error(`autocannon against ${target.name} failed (${(error as Error).message}):\n${stderr}\n${stdout}`));
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Gateway self-reporting: /metrics and the task records

async function scrapeHistogram(metricsUrl: string, name: string): Promise<Histogram> {
  const response = await request(metricsUrl, { dispatcher: agent });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${metricsUrl} answered ${response.statusCode}`);
  const histogram: Histogram = { buckets: new Map(), sum: 0, count: 0 };
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}_`)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${name}_sum`)) histogram.sum += value;
    else if (line.startsWith(`${name}_count`)) histogram.count += value;
    else if (line.startsWith(`${name}_bucket`)) {
      const le = /le="([^"]+)"/.exec(line)?.[1];
      if (!le) continue;
      const bound = le === '+Inf' ? Infinity : Number(le);
      histogram.buckets.set(bound, (histogram.buckets.get(bound) ?? 0) + value);
    }
  }
  return histogram;
}

/** The observations made between two scrapes of the same histogram. */
function since(after: Histogram, before: Histogram): Histogram {
  const buckets = new Map<number, number>();
  for (const [bound, count] of after.buckets) buckets.set(bound, count - (before.buckets.get(bound) ?? 0));
  return { buckets, sum: after.sum - before.sum, count: after.count - before.count };
}

/** Upper bound of the bucket holding quantile q: Prometheus-style resolution, good to the bucket only. */
function bucketQuantile(h: Histogram, q: number): number {
  const rank = q * h.count;
  for (const [bound, cumulative] of [...h.buckets].sort((a, b) => a[0] - b[0])) if (cumulative >= rank) return bound;
  return Infinity;
}

function describeOverhead(h: Histogram): string {
  if (h.count === 0) return 'no observations';
  const ms = (seconds: number) => (seconds === Infinity ? '>max bucket' : `≤ ${fmt(seconds * 1000)} ms`);
  return `mean ${fmt((h.sum / h.count) * 1000)} ms over ${h.count} requests (p50 ${ms(bucketQuantile(h, 0.5))}, p99 ${ms(bucketQuantile(h, 0.99))} by bucket)`;
}

/** Task records per status. The worker writes them with group commit, so give stragglers a moment. */
async function taskCounts(client: MongoClient, settle: boolean): Promise<Record<string, number>> {
  const read = async () => {
    const rows = await client.db().collection('tasks').aggregate<{ _id: string; n: number }>([{ $group: { _id: '$status', n: { $sum: 1 } } }]).toArray();
    return Object.fromEntries(rows.map((r) => [r._id, r.n]));
  };
  let counts = await read();
  if (!settle) return counts;
  // Stable for 1 s (or 20 s in all) counts as settled.
  const deadline = Date.now() + 20_000;
  let stableSince = Date.now();
  while (Date.now() - stableSince < 1000 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    const next = await read();
    if (total(next) !== total(counts)) stableSince = Date.now();
    counts = next;
  }
  return counts;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((s, n) => s + n, 0);

function countsDelta(after: Record<string, number>, before: Record<string, number>): string {
  const parts = Object.keys(after).sort().map((status) => `${status} ${after[status] - (before[status] ?? 0)}`);
  return parts.length ? parts.join(', ') : 'none';
}

// ---------------------------------------------------------------------------------------------------------------
// Output

const fmt = (n: number, digits = 2) => n.toFixed(digits);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
  return rows
    .map((row, i) => {
      const line = row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('   ');
      return i === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('   ')}` : line;
    })
    .map((line) => `  ${line}`)
    .join('\n');
}

function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = options();
  const apiUrl = env('BENCH_API_URL');
  const direct: Target = { name: 'direct', url: `${env('BENCH_UPSTREAM_URL')}/embeddings`, authorization: 'Bearer none' };
  const gateway: Target = { name: 'gateway', url: `${apiUrl}/v1/embeddings`, authorization: `Bearer ${env('BENCH_API_KEY')}` };
  const metricsUrl = `${apiUrl}/metrics`;
  const mongo = await MongoClient.connect(env('BENCH_MONGODB_URI'));

  const cpus = os.cpus();
  print('Gateway overhead benchmark');
  print(`  machine:    ${cpus.length} CPU(s) (${cpus[0]?.model.trim() ?? 'unknown'}), ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, ${os.platform()} ${os.release()}`);
  print(`  node:       ${process.version}`);
  print(`  gateway:    1 api + 1 worker, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? '?'}, NODE_ENV=${process.env.BENCH_NODE_ENV ?? '?'}, WORKER_CONCURRENCY=${process.env.BENCH_WORKER_CONCURRENCY ?? '?'}`);
  print(`  request:    POST /v1/embeddings ${BODY}`);
  print(`  note:       load generator, fake upstream, api, worker, Redis and FerretDB all share this machine's CPUs`);
  print();

  // 1. Warm-up: JIT, connection pools, the api's key cache. Fail fast if the gateway does not answer at all.
  const first = await timeOne(gateway);
  if (first.status !== 200) {
    const response = await request(gateway.url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', authorization: gateway.authorization }, body: BODY });
    throw new Error(`the gateway answered ${first.status} to the first request: ${await response.body.text()}`);
  }
  const warmup = await sequential(gateway, Math.max(0, opts.warmup - 1));
  await sequential(direct, Math.min(200, opts.warmup));
  const warmupFailures = warmup.filter((s) => s.status !== 200).length;
  print(`Warm-up: ${opts.warmup} gateway requests (${warmupFailures} non-200), ${Math.min(200, opts.warmup)} direct`);
  print();

  // 2. Unloaded latency: one request at a time, direct first, then through the gateway.
  const overheadBefore = await scrapeHistogram(metricsUrl, 'gateway_overhead_seconds');
  const directSamples = await sequential(direct, opts.requests);
  const gatewaySamples = await sequential(gateway, opts.requests);
  const overheadUnloaded = since(await scrapeHistogram(metricsUrl, 'gateway_overhead_seconds'), overheadBefore);
  const directStats = stats(directSamples.map((s) => s.ms));
  const gatewayStats = stats(gatewaySamples.map((s) => s.ms));
  const directNon200 = directSamples.filter((s) => s.status !== 200).length;
  const gatewayNon200 = gatewaySamples.filter((s) => s.status !== 200);
  const added = { p50: gatewayStats.p50 - directStats.p50, p99: gatewayStats.p99 - directStats.p99 };
  const headerValues = gatewaySamples.map((s) => Number(s.overheadHeader)).filter((v) => Number.isFinite(v));
  const headerStats = headerValues.length ? stats(headerValues) : undefined;

  print(`Unloaded latency: ${opts.requests} sequential requests each, keep-alive (ms, send → last body byte)`);
  print(
    table([
      ['', 'p50', 'p90', 'p99', 'mean', 'non-200'],
      ...(
        [
          ['direct to fake', directStats, directNon200],
          ['through gateway', gatewayStats, gatewayNon200.length],
        ] as const
      ).map(([label, s, bad]) => [label, fmt(s.p50), fmt(s.p90), fmt(s.p99), fmt(s.mean), String(bad)]),
    ]),
  );
  print(`  added by the gateway (difference of percentiles): p50 ${fmt(added.p50)} ms, p99 ${fmt(added.p99)} ms`);
  print(`  x-gateway-overhead-ms of one unloaded request: ${first.overheadHeader ?? 'missing'} (first request); ${gatewaySamples[gatewaySamples.length - 1].overheadHeader ?? 'missing'} (last)`);
  if (headerStats) {
    print(`  x-gateway-overhead-ms over all ${headerValues.length}: p50 ${fmt(headerStats.p50)}, p90 ${fmt(headerStats.p90)}, p99 ${fmt(headerStats.p99)}, mean ${fmt(headerStats.mean)}`);
  }
  print(`  /metrics gateway_overhead_seconds, this phase: ${describeOverhead(overheadUnloaded)}`);
  if (gatewayNon200.length) {
    const byStatus = gatewayNon200.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {});
    print(`  WARNING: non-200 gateway answers by status: ${JSON.stringify(byStatus)}`);
  }
  print();

  // 3. Under load: autocannon, direct first, then the gateway.
  const tasksBeforeLoad = await taskCounts(mongo, true);
  print(`Under load: autocannon, ${opts.connections} connections for ${opts.duration} s each`);
  const directLoad = await autocannon(direct, opts);
  const loadMetricsBefore = await scrapeHistogram(metricsUrl, 'gateway_overhead_seconds');
  const gatewayLoad = await autocannon(gateway, opts);
  // 4. The gateway's own view of the load run.
  const overheadLoad = since(await scrapeHistogram(metricsUrl, 'gateway_overhead_seconds'), loadMetricsBefore);
  const overheadAll = await scrapeHistogram(metricsUrl, 'gateway_overhead_seconds');
  const tasksAfterLoad = await taskCounts(mongo, true);
  await mongo.close();

  print(
    table([
      ['', 'req/s (avg)', 'requests', 'p50 ms', 'p99 ms', 'mean ms', 'max ms', '2xx', 'non-2xx', 'errors', 'timeouts'],
      ...([directLoad, gatewayLoad] as const).map((r, i) => [
        i === 0 ? 'direct to fake' : 'through gateway',
        fmt(r.requests.average, 1), String(r.requests.total), fmt(r.latency.p50), fmt(r.latency.p99), fmt(r.latency.average), fmt(r.latency.max),
        String(r['2xx']), String(r.non2xx), String(r.errors), String(r.timeouts),
      ]),
    ]),
  );
  const gatewayStatuses = gatewayLoad.statusCodeStats ? Object.entries(gatewayLoad.statusCodeStats).map(([code, s]) => `${code}: ${s.count}`).join(', ') : 'n/a';
  print(`  gateway status codes: ${gatewayStatuses}; requests sent ${gatewayLoad.requests.sent} (the ones in flight at the end are cut off)`);
  print(`  /metrics gateway_overhead_seconds, load phase: ${describeOverhead(overheadLoad)}`);
  print(`  /metrics gateway_overhead_seconds, whole run:  ${describeOverhead(overheadAll)}`);
  const loadTasks = total(tasksAfterLoad) - total(tasksBeforeLoad);
  print(`  task records written during the load phase: ${loadTasks} (${countsDelta(tasksAfterLoad, tasksBeforeLoad)}) vs ${gatewayLoad['2xx']} 2xx responses`);
  print(`  task records in all: ${total(tasksAfterLoad)} vs ${1 + warmup.length + gatewaySamples.length + gatewayLoad.requests.sent} gateway requests sent in all`);
  print();

  // 5. Summary against the targets (printed, never asserted).
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  print('Summary');
  print(
    table([
      ['', 'measured', 'target', ''],
      ['unloaded added latency p50', `${fmt(added.p50)} ms`, `≤ ${TARGETS.addedP50Ms} ms`, verdict(added.p50 <= TARGETS.addedP50Ms)],
      ['unloaded added latency p99', `${fmt(added.p99)} ms`, `≤ ${TARGETS.addedP99Ms} ms`, verdict(added.p99 <= TARGETS.addedP99Ms)],
      [`gateway throughput @ ${opts.connections} conn`, `${fmt(gatewayLoad.requests.average, 1)} req/s`, `≥ ${TARGETS.loadRps} req/s`, verdict(gatewayLoad.requests.average >= TARGETS.loadRps)],
      [`  (direct to fake @ ${opts.connections} conn)`, `${fmt(directLoad.requests.average, 1)} req/s`, '', ''],
      [`gateway latency under load p50 / p99`, `${fmt(gatewayLoad.latency.p50)} / ${fmt(gatewayLoad.latency.p99)} ms`, '', ''],
      ['gateway non-200 (unloaded / load)', `${gatewayNon200.length} / ${gatewayLoad.non2xx + gatewayLoad.errors + gatewayLoad.timeouts}`, '0', verdict(gatewayNon200.length + gatewayLoad.non2xx + gatewayLoad.errors + gatewayLoad.timeouts === 0)],
      ['task records vs 2xx (load phase)', `${loadTasks} / ${gatewayLoad['2xx']}`, '≥ 2xx', verdict(loadTasks >= gatewayLoad['2xx'])],
    ]),
  );
  if (opts.connections !== 50) print(`  (the throughput target is stated for 50 connections; this run used ${opts.connections})`);
}

main()
  .catch((error) => {
    process.stderr.write(`overhead bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => agent.close());
