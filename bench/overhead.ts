/**
 * Gateway overhead benchmark: the latency and throughput the gateway adds on top of its upstream.
 *
 * Calls the fake OpenAI upstream directly and through the gateway (api → BullMQ → worker → upstream → reply
 * channel → api) with the same embeddings request, one request at a time (unloaded latency) and then under load
 * with autocannon in a separate process. With a peer gateway (BENCH_PEER_URL, from `--peer portkey`) it sends the
 * same request through the peer to the same fake too, so both gateways are measured in one run. Prints figures and
 * the targets beside them; asserts nothing.
 *
 * Run it with `npm run bench:overhead` (scripts/bench.js starts the services and sets the BENCH_* variables).
 * Options: --requests N (sequential requests per target, 2000), --warmup N (500), --connections N (50),
 * --duration S (10), --first gateway|peer (which of the two gateways goes first in each phase, gateway).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { Agent, request } from 'undici';
import { PEERS, cpuSeconds as processCpuSeconds, runBench } from './shared';

// Against a peer, throughput is a ratio to the peer's (the same machine and load); without one, an absolute floor.
const TARGETS = { loadRps: 1000, peerRpsRatio: 1.3, addedP50Ms: 1.5, addedP99Ms: 6 };
const BODY = JSON.stringify({ model: 'text-embedding-v4', input: 'the quick brown fox', dimensions: 256 });

interface Options {
  requests: number;
  warmup: number;
  connections: number;
  duration: number;
  first: 'gateway' | 'peer';
}

interface Target {
  name: string;
  /** Its rows' label in the tables. */
  label: string;
  url: string;
  authorization: string;
  /** Sent with every request besides content-type and authorization. */
  headers?: Record<string, string>;
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
      first: { type: 'string', default: 'gateway' },
    },
    strict: true,
    allowPositionals: false,
  });
  const count = (flag: keyof typeof values, min: number): number => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be a whole number ≥ ${min}`);
    return n;
  };
  const first = values.first;
  if (first !== 'gateway' && first !== 'peer') throw new Error('--first must be gateway or peer');
  return {
    requests: count('requests', 1),
    warmup: count('warmup', 0),
    connections: count('connections', 1),
    duration: count('duration', 1),
    first,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Unloaded latency

const agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });

function headers(target: Target): Record<string, string> {
  return { 'content-type': 'application/json', authorization: target.authorization, ...target.headers };
}

function send(target: Target) {
  return request(target.url, { method: 'POST', dispatcher: agent, headers: headers(target), body: BODY });
}

/** One request, timed from send to the last byte of the body. */
async function timeOne(target: Target): Promise<Sample> {
  const start = process.hrtime.bigint();
  const response = await send(target);
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

/** `count` requests (at least one); fails fast when the first is not answered 200. */
async function warmUp(target: Target, count: number): Promise<Sample[]> {
  const first = await timeOne(target);
  if (first.status !== 200) {
    const response = await send(target);
    throw new Error(`${target.name} answered ${first.status} to the first request: ${await response.body.text()}`);
  }
  return [first, ...(await sequential(target, Math.max(0, count - 1)))];
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
    ...Object.entries(headers(target)).flatMap(([name, value]) => ['-H', `${name}=${value}`]),
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

interface LoadRun {
  result: AutocannonResult;
  /** Each service's CPU use over the run. */
  cpu: string;
}

/** One autocannon run, with the CPU the services used meanwhile. */
async function loadRun(target: Target, opts: Options): Promise<LoadRun> {
  const pids = servicePids();
  const before = cpuSecondsOf(pids);
  const started = process.hrtime.bigint();
  const result = await autocannon(target, opts);
  return { result, cpu: describeCpu(before, cpuSecondsOf(pids), Number(process.hrtime.bigint() - started) / 1e9) };
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

/** A gauge's value in a Prometheus text exposition (prom-client's default process and Node.js metrics). */
function gauge(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
}

/** The api's resident set and used heap as its /metrics reports them now, in MB. */
async function apiMemory(apiMetricsUrl: string): Promise<string> {
  const text = await scrape(apiMetricsUrl);
  const mb = (name: string) => fmt(gauge(text, name) / 1e6, 1);
  return `RSS ${mb('process_resident_memory_bytes')} MB, heapUsed ${mb('nodejs_heap_size_used_bytes')} MB`;
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
function cpuSecondsOf(pids: [string, number][]): Map<string, number> {
  const times = new Map<string, number>();
  for (const [name, pid] of pids) {
    const seconds = processCpuSeconds(pid);
    // Not Linux, or the process is gone: leave it out.
    if (Number.isFinite(seconds)) times.set(name, seconds);
  }
  return times;
}

/** CPU seconds each service used between two samples (the services in both). */
function cpuUsed(before: Map<string, number>, after: Map<string, number>): [string, number][] {
  return [...after].filter(([name]) => before.has(name)).map(([name, t]) => [name, t - before.get(name)!]);
}

function describeCpu(before: Map<string, number>, after: Map<string, number>, seconds: number): string {
  const parts = cpuUsed(before, after).map(([name, used]) => `${name} ${Math.round((used / seconds) * 100)}%`);
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
  const upstreamUrl = env('BENCH_UPSTREAM_URL');
  const direct: Target = {
    name: 'direct',
    label: 'direct to fake',
    url: `${upstreamUrl}/embeddings`,
    authorization: 'Bearer none',
  };
  const gateway: Target = {
    name: 'gateway',
    label: 'through gateway',
    url: `${apiUrl}/v1/embeddings`,
    authorization: `Bearer ${env('BENCH_API_KEY')}`,
  };
  const peer = peerTarget(upstreamUrl);
  const apiMetrics = `${env('BENCH_API_METRICS_URL')}/metrics`;
  const workerMetrics = `${env('BENCH_WORKER_URL')}/metrics`;
  const mongo = await MongoClient.connect(env('BENCH_MONGODB_URI'));
  try {
    await run(opts, { direct, gateway, peer, apiMetrics, workerMetrics, mongo });
  } finally {
    await mongo.close();
  }
}

/** The peer gateway scripts/bench.js started (`--peer`), if any: the same request, routed to the same fake. */
function peerTarget(upstreamUrl: string): Target | undefined {
  const url = process.env.BENCH_PEER_URL;
  if (!url) return undefined;
  const name = process.env.BENCH_PEER_NAME ?? '';
  const peer = PEERS[name];
  if (!peer) throw new Error(`unknown peer gateway "${name}" (known: ${Object.keys(PEERS).join(', ')})`);
  return {
    name,
    label: `through ${name}`,
    url: `${url}/v1/embeddings`,
    // The peer passes it on to the fake, which ignores it: the same header as the direct calls.
    authorization: 'Bearer none',
    headers: peer.headers(upstreamUrl),
  };
}

/** The peer's package version, so that its figures say what they were measured against. */
function peerVersion(name: string): string {
  try {
    const file = path.resolve(__dirname, '..', 'node_modules', PEERS[name].package, 'package.json');
    return `${PEERS[name].package} ${(JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version}`;
  } catch {
    return PEERS[name].package;
  }
}

interface Setup {
  direct: Target;
  gateway: Target;
  peer?: Target;
  apiMetrics: string;
  workerMetrics: string;
  mongo: MongoClient;
}

/** One target's sequential requests. */
interface Unloaded {
  samples: Sample[];
  stats: Stats;
  non200: Sample[];
  /** Each service's user + system CPU per request while these ran, µs (the services that used any). */
  cpuPerRequest: string;
}

/** Runs `count` sequential requests to `target`, and what each cost the services in CPU. */
async function unloadedRun(target: Target, count: number): Promise<Unloaded> {
  const pids = servicePids();
  const before = cpuSecondsOf(pids);
  const samples = await sequential(target, count);
  const after = cpuSecondsOf(pids);
  const cpuPerRequest = cpuUsed(before, after)
    .map(([name, used]) => [name, (used / samples.length) * 1e6] as const)
    .filter(([, micros]) => micros >= 5)
    .map(([name, micros]) => `${name} ${Math.round(micros)}`)
    .join(', ');
  return {
    samples,
    stats: stats(samples.map((s) => s.ms)),
    non200: samples.filter((s) => s.status !== 200),
    cpuPerRequest: cpuPerRequest || 'n/a',
  };
}

/** The latency a gateway adds: its percentiles minus the direct ones. */
function addedBy(through: Stats, direct: Stats): { p50: number; p99: number } {
  return { p50: through.p50 - direct.p50, p99: through.p99 - direct.p99 };
}

const loadFailures = (r: AutocannonResult) => r.non2xx + r.errors + r.timeouts;

function statusCodes(r: AutocannonResult): string {
  return r.statusCodeStats
    ? Object.entries(r.statusCodeStats)
        .map(([code, s]) => `${code}: ${s.count}`)
        .join(', ')
    : 'n/a';
}

function countByStatus(samples: Sample[]): Record<number, number> {
  return samples.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {});
}

function printSetup(opts: Options, peer: Target | undefined, order: string): void {
  const cpus = os.cpus();
  print('Gateway overhead benchmark');
  print(
    `  machine:    ${cpus.length} CPU(s) (${cpus[0]?.model.trim() ?? 'unknown'}), ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, ${os.platform()} ${os.release()}`,
  );
  print(`  node:       ${process.version}`);
  print(
    `  gateway:    1 api + 1 worker, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? '?'}, NODE_ENV=${process.env.BENCH_NODE_ENV ?? '?'}, WORKER_CONCURRENCY=${process.env.BENCH_WORKER_CONCURRENCY ?? '?'}`,
  );
  if (peer) {
    print(
      `  peer:       ${peer.name} (${peerVersion(peer.name)}), to the same fake upstream by ${Object.keys(peer.headers ?? {}).join(', ')}`,
    );
  }
  print(`  request:    POST /v1/embeddings ${BODY}`);
  print(`  order:      ${order} in each phase (--first ${opts.first})`);
  print(
    `  note:       load generator, fake upstream, api, worker, Redis and FerretDB${peer ? `, ${peer.name}` : ''} all share this machine's CPUs`,
  );
  print();
}

async function run(opts: Options, setup: Setup): Promise<void> {
  const { direct, gateway, peer, apiMetrics, workerMetrics, mongo } = setup;
  // The two gateways take turns in the order --first asks for, so that alternating runs can tell order from cost.
  const pair = peer ? (opts.first === 'peer' ? [peer, gateway] : [gateway, peer]) : [gateway];
  const shown = peer ? [direct, gateway, peer] : [direct, gateway];
  printSetup(opts, peer, [direct, ...pair].map((t) => t.name).join(', '));

  // 1. Warm-up: JIT, connection pools, the api's key cache. Fail fast if a gateway does not answer at all.
  const warmups = new Map<Target, Sample[]>();
  for (const target of pair) warmups.set(target, await warmUp(target, opts.warmup));
  await sequential(direct, Math.min(200, opts.warmup));
  const gatewayWarmup = warmups.get(gateway)!;
  const warmedUp = pair.map((t) => {
    const samples = warmups.get(t)!;
    return `${samples.length} ${t.name} requests (${samples.filter((s) => s.status !== 200).length} non-200)`;
  });
  print(`Warm-up: ${warmedUp.join(', ')}, ${Math.min(200, opts.warmup)} direct`);
  print();

  // 2. Unloaded latency: one request at a time, direct first, then the gateways in turn.
  const unloadedBefore = await snapshot(apiMetrics, workerMetrics);
  const unloadedRuns = new Map<Target, Unloaded>();
  for (const target of [direct, ...pair]) unloadedRuns.set(target, await unloadedRun(target, opts.requests));
  const unloaded = snapshotSince(await snapshot(apiMetrics, workerMetrics), unloadedBefore);
  const directStats = unloadedRuns.get(direct)!.stats;
  const gatewaySamples = unloadedRuns.get(gateway)!.samples;
  const added = addedBy(unloadedRuns.get(gateway)!.stats, directStats);
  const peerAdded = peer && addedBy(unloadedRuns.get(peer)!.stats, directStats);
  const headerValues = gatewaySamples.map((s) => Number(s.overheadHeader)).filter((v) => Number.isFinite(v));
  const headerStats = headerValues.length ? stats(headerValues) : undefined;

  print(`Unloaded latency: ${opts.requests} sequential requests each, keep-alive (ms, send → last body byte)`);
  print(
    table([
      ['', 'p50', 'p90', 'p99', 'mean', 'non-200'],
      ...shown.map((t) => {
        const { stats: s, non200 } = unloadedRuns.get(t)!;
        return [t.label, fmt(s.p50), fmt(s.p90), fmt(s.p99), fmt(s.mean), String(non200.length)];
      }),
    ]),
  );
  print(`  added by the gateway (difference of percentiles): p50 ${fmt(added.p50)} ms, p99 ${fmt(added.p99)} ms`);
  print(`  CPU per request (µs, user + system; /proc, ${os.cpus().length} CPUs shared by all):`);
  for (const t of shown) print(`    ${t.label}: ${unloadedRuns.get(t)!.cpuPerRequest}`);
  if (peer && peerAdded) {
    print(
      `  added by ${peer.name} (difference of percentiles): p50 ${fmt(peerAdded.p50)} ms, p99 ${fmt(peerAdded.p99)} ms`,
    );
  }
  print(
    `  x-gateway-overhead-ms of one unloaded request: ${gatewayWarmup[0].overheadHeader ?? 'missing'} (first request); ${gatewaySamples[gatewaySamples.length - 1].overheadHeader ?? 'missing'} (last)`,
  );
  if (headerStats) {
    print(
      `  x-gateway-overhead-ms over all ${headerValues.length}: p50 ${fmt(headerStats.p50)}, p90 ${fmt(headerStats.p90)}, p99 ${fmt(headerStats.p99)}, mean ${fmt(headerStats.mean)}`,
    );
  }
  print(`  /metrics gateway_overhead_seconds, this phase: ${describeOverhead(unloaded.overhead)}`);
  print(`  of which (means, api + worker /metrics): ${breakdown(unloaded)}`);
  for (const target of pair) {
    const { non200 } = unloadedRuns.get(target)!;
    if (non200.length)
      print(`  WARNING: non-200 ${target.name} answers by status: ${JSON.stringify(countByStatus(non200))}`);
  }
  print();

  // 3. Under load: autocannon, direct first, then the gateways in turn.
  const tasksBeforeLoad = await taskCounts(mongo, true);
  print(`Under load: autocannon, ${opts.connections} connections for ${opts.duration} s each`);
  const directLoad = (await loadRun(direct, opts)).result;
  // Only the gateway's own requests reach its /metrics, so a peer's run within these scrapes changes nothing there.
  const loadBefore = await snapshot(apiMetrics, workerMetrics);
  const loads = new Map<Target, LoadRun>();
  for (const target of pair) loads.set(target, await loadRun(target, opts));
  // 4. The gateway's own view of the load run.
  const whole = await snapshot(apiMetrics, workerMetrics);
  const load = snapshotSince(whole, loadBefore);
  const tasksAfterLoad = await taskCounts(mongo, true);
  const insertProbe = await probeInserts(mongo, 200);
  const gatewayLoad = loads.get(gateway)!.result;
  const peerLoad = peer && loads.get(peer)!.result;
  const loadOf = (t: Target) => (t === direct ? directLoad : loads.get(t)!.result);

  print(
    table([
      ['', 'req/s (avg)', 'requests', 'p50 ms', 'p99 ms', 'mean ms', 'max ms', '2xx', 'non-2xx', 'errors', 'timeouts'],
      ...shown.map((t) => {
        const r = loadOf(t);
        return [
          t.label,
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
        ];
      }),
    ]),
  );
  for (const target of shown.slice(1)) {
    const { result, cpu } = loads.get(target)!;
    print(
      `  ${target.name} status codes: ${statusCodes(result)}; requests sent ${result.requests.sent} (the ones in flight at the end are cut off)`,
    );
    print(`  CPU during the ${target.name} load run (100% = one core of ${os.cpus().length}): ${cpu}`);
  }
  print(`  /metrics gateway_overhead_seconds, load phase: ${describeOverhead(load.overhead)}`);
  print(`  of which (means, api + worker /metrics): ${breakdown(load)}`);
  print(`  /metrics gateway_overhead_seconds, whole run:  ${describeOverhead(whole.overhead)}`);
  print(`  api memory after the load phase: ${await apiMemory(apiMetrics)}`);
  const loadTasks = total(tasksAfterLoad) - total(tasksBeforeLoad);
  print(
    `  task records written during the load phase: ${loadTasks} (${countsDelta(tasksAfterLoad, tasksBeforeLoad)}) vs ${gatewayLoad['2xx']} 2xx responses`,
  );
  print(
    `  task records in all: ${total(tasksAfterLoad)} vs ${gatewayWarmup.length + gatewaySamples.length + gatewayLoad.requests.sent} gateway requests sent in all`,
  );
  print(
    `  reference: one FerretDB insertOne of a task-sized document (~5 KB, sequential, after the run): p50 ${fmt(insertProbe.p50)} ms, p99 ${fmt(insertProbe.p99)} ms`,
  );
  print();

  // 5. Summary against the targets (printed, never asserted).
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  const failureRow = (t: Target, label: string) => {
    const unloadedFailures = unloadedRuns.get(t)!.non200.length;
    const loadedFailures = loadFailures(loadOf(t));
    return [label, `${unloadedFailures} / ${loadedFailures}`, '0', verdict(unloadedFailures + loadedFailures === 0)];
  };
  // A ratio of added latencies means nothing when the peer's is within noise of zero or below.
  const addedRatio = (a: number, b: number) => (b > 0 ? ` (${fmt(a / b)}×)` : '');
  const rps = gatewayLoad.requests.average;
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
      ...(peer && peerAdded
        ? [
            [
              `  vs ${peer.name}'s added p50`,
              `${fmt(added.p50)} vs ${fmt(peerAdded.p50)} ms${addedRatio(added.p50, peerAdded.p50)}`,
              `≤ ${peer.name}'s`,
              verdict(added.p50 <= peerAdded.p50),
            ],
          ]
        : []),
      [
        'unloaded added latency p99',
        `${fmt(added.p99)} ms`,
        `≤ ${TARGETS.addedP99Ms} ms`,
        verdict(added.p99 <= TARGETS.addedP99Ms),
      ],
      ...(peer && peerAdded
        ? [[`  (${peer.name} added p50 / p99)`, `${fmt(peerAdded.p50)} / ${fmt(peerAdded.p99)} ms`, '', '']]
        : []),
      peer && peerLoad
        ? [
            `gateway ÷ ${peer.name} req/s @ ${opts.connections} conn`,
            `${fmt(rps / peerLoad.requests.average)}× (${fmt(rps, 1)} / ${fmt(peerLoad.requests.average, 1)} req/s)`,
            `≥ ${TARGETS.peerRpsRatio}×`,
            verdict(rps >= TARGETS.peerRpsRatio * peerLoad.requests.average),
          ]
        : [
            `gateway throughput @ ${opts.connections} conn`,
            `${fmt(rps, 1)} req/s`,
            `≥ ${TARGETS.loadRps} req/s`,
            verdict(rps >= TARGETS.loadRps),
          ],
      [`  (direct to fake @ ${opts.connections} conn)`, `${fmt(directLoad.requests.average, 1)} req/s`, '', ''],
      ...shown
        .slice(1)
        .map((t) => [
          `${t.name} latency under load p50 / p99`,
          `${fmt(loadOf(t).latency.p50)} / ${fmt(loadOf(t).latency.p99)} ms`,
          '',
          '',
        ]),
      ...shown.map((t) => failureRow(t, `${t.name} failures (unloaded / load)`)),
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

runBench('overhead', main, () => agent.close());
