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
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
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
  return {
    requests: count('requests', 1),
    warmup: count('warmup', 0),
    connections: count('connections', 1),
    duration: count('duration', 1),
  };
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

/** The autocannon process of the moment, stopped with this one (scripts/bench.js stops this with SIGTERM). */
let loadGenerator: ReturnType<typeof spawn> | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    loadGenerator?.kill();
    process.exit(130);
  });
}

function autocannon(target: Target, opts: Options): Promise<AutocannonResult> {
  const bin = path.resolve(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const args = [
    bin,
    '--json',
    '-c',
    String(opts.connections),
    '-d',
    String(opts.duration),
    '-m',
    'POST',
    // `name=value`: autocannon splits at the first ':' or '=' and would keep the space after a ':'.
    '-H',
    'content-type=application/json',
    '-H',
    `authorization=${target.authorization}`,
    '-b',
    BODY,
    target.url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    loadGenerator = child;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      loadGenerator = undefined;
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        resolve(JSON.parse(stdout) as AutocannonResult);
      } catch (error) {
        reject(
          new Error(`autocannon against ${target.name} failed (${(error as Error).message}):\n${stderr}\n${stdout}`),
        );
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Gateway self-reporting: /metrics and the task records

async function scrape(metricsUrl: string): Promise<string> {
  const response = await request(metricsUrl, { dispatcher: agent });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${metricsUrl} answered ${response.statusCode}`);
  return text;
}

/** Parses one histogram out of a Prometheus text exposition, summing its series over all labels. */
function histogram(text: string, name: string): Histogram {
  const h: Histogram = { buckets: new Map(), sum: 0, count: 0 };
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}_`)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${name}_sum`)) h.sum += value;
    else if (line.startsWith(`${name}_count`)) h.count += value;
    else if (line.startsWith(`${name}_bucket`)) {
      const le = /le="([^"]+)"/.exec(line)?.[1];
      if (!le) continue;
      const bound = le === '+Inf' ? Infinity : Number(le);
      h.buckets.set(bound, (h.buckets.get(bound) ?? 0) + value);
    }
  }
  return h;
}

/** The histograms this bench follows: the api's overhead, and the worker's view of the same requests. */
interface Snapshot {
  overhead: Histogram;
  jobWait: Histogram;
  jobDuration: Histogram;
  upstream: Histogram;
}

async function snapshot(apiMetricsUrl: string, workerMetricsUrl: string): Promise<Snapshot> {
  const [api, worker] = await Promise.all([scrape(apiMetricsUrl), scrape(workerMetricsUrl)]);
  return {
    overhead: histogram(api, 'gateway_overhead_seconds'),
    jobWait: histogram(worker, 'gateway_job_wait_seconds'),
    jobDuration: histogram(worker, 'gateway_job_duration_seconds'),
    upstream: histogram(worker, 'gateway_upstream_request_duration_seconds'),
  };
}

function snapshotSince(after: Snapshot, before: Snapshot): Snapshot {
  return {
    overhead: since(after.overhead, before.overhead),
    jobWait: since(after.jobWait, before.jobWait),
    jobDuration: since(after.jobDuration, before.jobDuration),
    upstream: since(after.upstream, before.upstream),
  };
}

const meanMs = (h: Histogram) => (h.count ? (h.sum / h.count) * 1000 : NaN);

/**
 * Where the api's overhead goes, from means. The worker measures job wait (enqueue → pick-up, whole ms clocks)
 * and job duration (pick-up → provider answer, before the task record is written); whatever remains is api
 * handling, the task record insert, the reply publish and the response.
 */
function breakdown(s: Snapshot): string {
  const overhead = meanMs(s.overhead);
  const wait = meanMs(s.jobWait);
  // Both are whole-ms clock differences in the worker, so a near-zero difference may come out slightly negative.
  const inWorker = Math.max(0, meanMs(s.jobDuration) - meanMs(s.upstream));
  const rest = overhead - wait - inWorker;
  return `job wait ${fmt(wait)} ms + worker excl. upstream ${fmt(inWorker)} ms + rest (api, task record insert, reply) ${fmt(rest)} ms`;
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
    const rows = await client
      .db()
      .collection('tasks')
      .aggregate<{ _id: string; n: number }>([{ $group: { _id: '$status', n: { $sum: 1 } } }])
      .toArray();
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
  const parts = Object.keys(after)
    .sort()
    .map((status) => `${status} ${after[status] - (before[status] ?? 0)}`);
  return parts.length ? parts.join(', ') : 'none';
}

/**
 * Reference figure for the task record the worker writes before it replies: sequential single-document inserts of
 * a task-sized document (the 256-float embeddings answer dominates) into a scratch collection, dropped afterwards.
 */
async function probeInserts(client: MongoClient, count: number): Promise<Stats> {
  const collection = client.db().collection<{ _id: number }>('bench_insert_probe');
  const embedding = Array.from({ length: 256 }, (_, i) => Math.fround(Math.sin(i * 7.1) / 16));
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const doc = {
      _id: i,
      status: 'succeeded',
      createdAt: new Date(),
      result: { object: 'list', data: [{ object: 'embedding', index: 0, embedding }] },
    };
    const start = process.hrtime.bigint();
    await collection.insertOne(doc);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  await collection.drop();
  return stats(times);
}

/** The services' pids from BENCH_PIDS ("api:123,worker:456,…"), to sample their CPU time from /proc. */
function servicePids(): [string, number][] {
  return (process.env.BENCH_PIDS ?? '')
    .split(',')
    .map((pair) => pair.split(':'))
    .filter(([name, pid]) => name && Number(pid) > 0)
    .map(([name, pid]) => [name, Number(pid)]);
}

/** User + system CPU seconds per service so far (Linux /proc; empty elsewhere). */
function cpuSeconds(pids: [string, number][]): Map<string, number> {
  const ticks = clockTicks();
  const times = new Map<string, number>();
  for (const [name, pid] of pids) {
    try {
      // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      times.set(name, (Number(fields[11]) + Number(fields[12])) / ticks);
    } catch {
      // Not Linux, or the process is gone: leave it out.
    }
  }
  return times;
}

let cachedClockTicks: number | undefined;
function clockTicks(): number {
  if (cachedClockTicks === undefined) {
    try {
      cachedClockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      cachedClockTicks = 100;
    }
  }
  return cachedClockTicks;
}

function describeCpu(before: Map<string, number>, after: Map<string, number>, seconds: number): string {
  const parts = [...after]
    .filter(([name]) => before.has(name))
    .map(([name, t]) => `${name} ${Math.round(((t - before.get(name)!) / seconds) * 100)}%`);
  return parts.length ? parts.join(', ') : 'n/a';
}

// ---------------------------------------------------------------------------------------------------------------
// Output

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** Left-aligned first column, right-aligned figures, a rule under the header row. */
function table(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
  const line = (row: string[]) =>
    row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('   ');
  const lines = [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('   '), ...rows.slice(1).map(line)];
  return lines.map((l) => `  ${l}`.trimEnd()).join('\n');
}

function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = options();
  const apiUrl = env('BENCH_API_URL');
  const direct: Target = {
    name: 'direct',
    url: `${env('BENCH_UPSTREAM_URL')}/embeddings`,
    authorization: 'Bearer none',
  };
  const gateway: Target = {
    name: 'gateway',
    url: `${apiUrl}/v1/embeddings`,
    authorization: `Bearer ${env('BENCH_API_KEY')}`,
  };
  const apiMetrics = `${apiUrl}/metrics`;
  const workerMetrics = `${env('BENCH_WORKER_URL')}/metrics`;
  const mongo = await MongoClient.connect(env('BENCH_MONGODB_URI'));
  try {
    await run(opts, { direct, gateway, apiMetrics, workerMetrics, mongo });
  } finally {
    await mongo.close();
  }
}

interface Setup {
  direct: Target;
  gateway: Target;
  apiMetrics: string;
  workerMetrics: string;
  mongo: MongoClient;
}

async function run(opts: Options, { direct, gateway, apiMetrics, workerMetrics, mongo }: Setup): Promise<void> {
  const cpus = os.cpus();
  print('Gateway overhead benchmark');
  print(
    `  machine:    ${cpus.length} CPU(s) (${cpus[0]?.model.trim() ?? 'unknown'}), ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, ${os.platform()} ${os.release()}`,
  );
  print(`  node:       ${process.version}`);
  print(
    `  gateway:    1 api + 1 worker, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? '?'}, NODE_ENV=${process.env.BENCH_NODE_ENV ?? '?'}, WORKER_CONCURRENCY=${process.env.BENCH_WORKER_CONCURRENCY ?? '?'}`,
  );
  print(`  request:    POST /v1/embeddings ${BODY}`);
  print(`  note:       load generator, fake upstream, api, worker, Redis and FerretDB all share this machine's CPUs`);
  print();

  // 1. Warm-up: JIT, connection pools, the api's key cache. Fail fast if the gateway does not answer at all.
  const first = await timeOne(gateway);
  if (first.status !== 200) {
    const response = await request(gateway.url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: gateway.authorization },
      body: BODY,
    });
    throw new Error(`the gateway answered ${first.status} to the first request: ${await response.body.text()}`);
  }
  const warmup = await sequential(gateway, Math.max(0, opts.warmup - 1));
  await sequential(direct, Math.min(200, opts.warmup));
  const warmupFailures = warmup.filter((s) => s.status !== 200).length;
  print(`Warm-up: ${opts.warmup} gateway requests (${warmupFailures} non-200), ${Math.min(200, opts.warmup)} direct`);
  print();

  // 2. Unloaded latency: one request at a time, direct first, then through the gateway.
  const unloadedBefore = await snapshot(apiMetrics, workerMetrics);
  const directSamples = await sequential(direct, opts.requests);
  const gatewaySamples = await sequential(gateway, opts.requests);
  const unloaded = snapshotSince(await snapshot(apiMetrics, workerMetrics), unloadedBefore);
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
  print(
    `  x-gateway-overhead-ms of one unloaded request: ${first.overheadHeader ?? 'missing'} (first request); ${gatewaySamples[gatewaySamples.length - 1].overheadHeader ?? 'missing'} (last)`,
  );
  if (headerStats) {
    print(
      `  x-gateway-overhead-ms over all ${headerValues.length}: p50 ${fmt(headerStats.p50)}, p90 ${fmt(headerStats.p90)}, p99 ${fmt(headerStats.p99)}, mean ${fmt(headerStats.mean)}`,
    );
  }
  print(`  /metrics gateway_overhead_seconds, this phase: ${describeOverhead(unloaded.overhead)}`);
  print(`  of which (means, api + worker /metrics): ${breakdown(unloaded)}`);
  if (gatewayNon200.length) {
    const byStatus = gatewayNon200.reduce<Record<number, number>>(
      (acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }),
      {},
    );
    print(`  WARNING: non-200 gateway answers by status: ${JSON.stringify(byStatus)}`);
  }
  print();

  // 3. Under load: autocannon, direct first, then the gateway.
  const tasksBeforeLoad = await taskCounts(mongo, true);
  print(`Under load: autocannon, ${opts.connections} connections for ${opts.duration} s each`);
  const directLoad = await autocannon(direct, opts);
  const loadBefore = await snapshot(apiMetrics, workerMetrics);
  const pids = servicePids();
  const cpuBefore = cpuSeconds(pids);
  const loadStarted = process.hrtime.bigint();
  const gatewayLoad = await autocannon(gateway, opts);
  const cpuDuringLoad = describeCpu(cpuBefore, cpuSeconds(pids), Number(process.hrtime.bigint() - loadStarted) / 1e9);
  // 4. The gateway's own view of the load run.
  const whole = await snapshot(apiMetrics, workerMetrics);
  const load = snapshotSince(whole, loadBefore);
  const tasksAfterLoad = await taskCounts(mongo, true);
  const insertProbe = await probeInserts(mongo, 200);

  print(
    table([
      ['', 'req/s (avg)', 'requests', 'p50 ms', 'p99 ms', 'mean ms', 'max ms', '2xx', 'non-2xx', 'errors', 'timeouts'],
      ...([directLoad, gatewayLoad] as const).map((r, i) => [
        i === 0 ? 'direct to fake' : 'through gateway',
        fmt(r.requests.average, 1),
        String(r.requests.total),
        fmt(r.latency.p50),
        fmt(r.latency.p99),
        fmt(r.latency.average),
        fmt(r.latency.max),
        String(r['2xx']),
        String(r.non2xx),
        String(r.errors),
        String(r.timeouts),
      ]),
    ]),
  );
  const gatewayStatuses = gatewayLoad.statusCodeStats
    ? Object.entries(gatewayLoad.statusCodeStats)
        .map(([code, s]) => `${code}: ${s.count}`)
        .join(', ')
    : 'n/a';
  print(
    `  gateway status codes: ${gatewayStatuses}; requests sent ${gatewayLoad.requests.sent} (the ones in flight at the end are cut off)`,
  );
  print(`  CPU during the gateway load run (100% = one core of ${os.cpus().length}): ${cpuDuringLoad}`);
  print(`  /metrics gateway_overhead_seconds, load phase: ${describeOverhead(load.overhead)}`);
  print(`  of which (means, api + worker /metrics): ${breakdown(load)}`);
  print(`  /metrics gateway_overhead_seconds, whole run:  ${describeOverhead(whole.overhead)}`);
  const loadTasks = total(tasksAfterLoad) - total(tasksBeforeLoad);
  print(
    `  task records written during the load phase: ${loadTasks} (${countsDelta(tasksAfterLoad, tasksBeforeLoad)}) vs ${gatewayLoad['2xx']} 2xx responses`,
  );
  print(
    `  task records in all: ${total(tasksAfterLoad)} vs ${1 + warmup.length + gatewaySamples.length + gatewayLoad.requests.sent} gateway requests sent in all`,
  );
  print(
    `  reference: one FerretDB insertOne of a task-sized document (~5 KB, sequential, after the run): p50 ${fmt(insertProbe.p50)} ms, p99 ${fmt(insertProbe.p99)} ms`,
  );
  print();

  // 5. Summary against the targets (printed, never asserted).
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  print('Summary');
  print(
    table([
      ['', 'measured', 'target', ''],
      [
        'unloaded added latency p50',
        `${fmt(added.p50)} ms`,
        `≤ ${TARGETS.addedP50Ms} ms`,
        verdict(added.p50 <= TARGETS.addedP50Ms),
      ],
      [
        'unloaded added latency p99',
        `${fmt(added.p99)} ms`,
        `≤ ${TARGETS.addedP99Ms} ms`,
        verdict(added.p99 <= TARGETS.addedP99Ms),
      ],
      [
        `gateway throughput @ ${opts.connections} conn`,
        `${fmt(gatewayLoad.requests.average, 1)} req/s`,
        `≥ ${TARGETS.loadRps} req/s`,
        verdict(gatewayLoad.requests.average >= TARGETS.loadRps),
      ],
      [`  (direct to fake @ ${opts.connections} conn)`, `${fmt(directLoad.requests.average, 1)} req/s`, '', ''],
      [
        `gateway latency under load p50 / p99`,
        `${fmt(gatewayLoad.latency.p50)} / ${fmt(gatewayLoad.latency.p99)} ms`,
        '',
        '',
      ],
      [
        'gateway failures (unloaded / load)',
        `${gatewayNon200.length} / ${gatewayLoad.non2xx + gatewayLoad.errors + gatewayLoad.timeouts}`,
        '0',
        verdict(gatewayNon200.length + gatewayLoad.non2xx + gatewayLoad.errors + gatewayLoad.timeouts === 0),
      ],
      [
        'task records vs 2xx (load phase)',
        `${loadTasks} / ${gatewayLoad['2xx']}`,
        '≥ 2xx',
        verdict(loadTasks >= gatewayLoad['2xx']),
      ],
    ]),
  );
  if (opts.connections !== 50)
    print(`  (the throughput target is stated for 50 connections; this run used ${opts.connections})`);
}

main()
  .catch((error) => {
    process.stderr.write(
      `overhead bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(() => agent.close());
