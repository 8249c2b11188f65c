/**
 * Held connections: --requests synchronous embeddings calls held by the api at once, against an upstream that answers
 * each after --upstream-ms (scripts/bench.js passes it to the fake as --latency-ms, runs enough workers for every call
 * to be in flight upstream together and raises the open-files limit of every process; see bench/README.md).
 *
 * A warm-up round of --warmup (500) held calls goes first, so that the hold finds the api's code compiled and its
 * pools open. The calls are opened in batches (--batch, 100), each once the previous batch's sockets have connected
 * and the api had --pause-ms (100) with them, so the listen backlog never overflows. Until the last one is answered,
 * the api's resident memory is sampled from /proc every 250 ms, its /metrics scraped every second (prom-client's
 * event-loop delay, reset by each scrape, and the held callers it counts) and /health/live polled every 50 ms from a
 * thread of its own. Prints every outcome and the figures beside the targets; asserts nothing.
 *
 * Run it with `npm run bench:held [-- --requests 10000 --upstream-ms 20000]`.
 */
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import {
  cpuSeconds,
  describeTally,
  env,
  fmt,
  openFilesLimit,
  print,
  printMachine,
  rssMb,
  runBench,
  servicePids,
  Stats,
  stats,
  syncTimeoutMs,
  table,
  tally,
  verdict,
} from './shared';

const COMMAND = 'npm run bench:held';
const TARGETS = { rssMb: 500, healthP99Ms: 50 };
const BODY = JSON.stringify({ model: 'text-embedding-v4', input: 'the quick brown fox', dimensions: 256 });
const RSS_EVERY_MS = 250;
const METRICS_EVERY_MS = 1000;
const HEALTH_EVERY_MS = 50;
/** /health/live probes taken before the first call, for the idle figure. */
const IDLE_PROBE_MS = 2000;
/** Files a process needs besides the held calls' sockets: its Redis, MongoDB and probe connections, its own files. */
const FD_MARGIN = 200;
/** Calls one worker takes at once, each on an upstream connection of its own (as in scripts/bench.js). */
const UPSTREAM_CONNECTIONS_PER_WORKER = 5_000;

interface Options {
  requests: number;
  warmup: number;
  upstreamMs: number;
  batch: number;
  pauseMs: number;
}

/** One held call: when it connected, how it ended (a status, `<status> <error code>`, a network error or `timeout`). */
interface Call {
  sentAt: number;
  connectMs?: number;
  endedAt?: number;
  outcome?: string;
}

interface Probe {
  at: number;
  ms: number;
  ok: boolean;
}

interface MetricsSample {
  at: number;
  lagP99Ms: number;
  lagMaxMs: number;
  waiters: number;
}

/** The moments that split the hold: first send, last batch connected, first and last answer (epoch ms). */
interface Phases {
  start: number;
  opened: number;
  firstAnswer: number;
  lastAnswer: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '10000' },
      warmup: { type: 'string', default: '500' },
      'upstream-ms': { type: 'string', default: '20000' },
      batch: { type: 'string', default: '100' },
      'pause-ms': { type: 'string', default: '100' },
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
    upstreamMs: count('upstream-ms', 0),
    batch: count('batch', 1),
    pauseMs: count('pause-ms', 0),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The held calls

/** No keep-alive: every call holds a socket of its own, as 10,000 separate callers would. */
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

interface Sent {
  call: Call;
  /** Settles once the call's socket has connected, or the call has ended. */
  connected: Promise<void>;
  ended: Promise<void>;
}

/** Sends one call; it ends with an answer, a network error, or `timeoutMs` without either. */
function send(apiUrl: URL, apiKey: string, timeoutMs: number): Sent {
  const call: Call = { sentAt: Date.now() };
  let markConnected!: () => void;
  let markEnded!: () => void;
  const connected = new Promise<void>((resolve) => (markConnected = resolve));
  const ended = new Promise<void>((resolve) => (markEnded = resolve));
  const end = (outcome: string) => {
    if (call.outcome) return;
    clearTimeout(timer);
    call.outcome = outcome;
    call.endedAt = Date.now();
    markConnected();
    markEnded();
  };
  const request = http.request(
    {
      host: apiUrl.hostname,
      port: apiUrl.port,
      path: '/v1/embeddings',
      method: 'POST',
      agent,
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(BODY),
      },
    },
    (response) => {
      const chunks: Buffer[] = [];
      // Only an error body is kept, for its code; a 200's vectors are read and dropped.
      response.on('data', (chunk: Buffer) => {
        if (response.statusCode !== 200) chunks.push(chunk);
      });
      response.once('end', () => end(outcomeOf(response.statusCode ?? 0, Buffer.concat(chunks))));
      response.once('error', (error) => end(networkLabel(error)));
    },
  );
  const timer = setTimeout(() => request.destroy(new Error('timeout')), timeoutMs);
  request.once('socket', (socket) => {
    const connectedNow = () => {
      call.connectMs = Date.now() - call.sentAt;
      markConnected();
    };
    if (socket.connecting) socket.once('connect', connectedNow);
    else connectedNow();
  });
  request.once('error', (error) => end(error.message === 'timeout' ? 'timeout' : networkLabel(error)));
  request.end(BODY);
  return { call, connected, ended };
}

function outcomeOf(status: number, body: Buffer): string {
  if (status === 200) return '200';
  try {
    const code = (JSON.parse(body.toString('utf8')) as { error?: { code?: string } }).error?.code;
    return code ? `${status} ${code}` : String(status);
  } catch {
    return String(status);
  }
}

function networkLabel(error: Error): string {
  return (error as NodeJS.ErrnoException).code ?? error.message;
}

/** Opens `count` calls, a batch at a time; resolves once the last batch has connected. */
async function openAll(count: number, opts: Options, apiUrl: URL, apiKey: string, timeoutMs: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  for (let opened = 0; opened < count; opened += opts.batch) {
    const batch = Array.from({ length: Math.min(opts.batch, count - opened) }, () => send(apiUrl, apiKey, timeoutMs));
    sent.push(...batch);
    await Promise.all(batch.map((b) => b.connected));
    if (opened + opts.batch < count) await sleep(opts.pauseMs);
  }
  return sent;
}

/** A smaller hold first; fails when none of it is answered 200 (a route or key problem), rather than wait again. */
async function warmUp(opts: Options, apiUrl: URL, apiKey: string, timeoutMs: number): Promise<void> {
  if (opts.warmup === 0) return;
  const started = Date.now();
  const sent = await openAll(opts.warmup, opts, apiUrl, apiKey, timeoutMs);
  await Promise.all(sent.map((s) => s.ended));
  const outcomes = tally(sent.map((s) => s.call.outcome ?? 'none'));
  print(
    `Warm-up: ${opts.warmup} held calls in ${fmt((Date.now() - started) / 1000, 1)} s (${describeTally(outcomes)})`,
  );
  if (!outcomes.some(([outcome]) => outcome === '200')) throw new Error('no warm-up call was answered 200');
}

// ---------------------------------------------------------------------------------------------------------------
// What is watched meanwhile

/** Peak resident memory of the api and of all workers together, sampled every RSS_EVERY_MS until stopped. */
function watchMemory(pids: Map<string, number>): { stop(): { api: number; workers: number } } {
  const workerPids = [...pids].filter(([name]) => name.startsWith('worker')).map(([, pid]) => pid);
  const peak = { api: 0, workers: 0 };
  const sample = () => {
    peak.api = Math.max(peak.api, rssMb(pids.get('api')!));
    peak.workers = Math.max(
      peak.workers,
      workerPids.reduce((sum, pid) => sum + rssMb(pid), 0),
    );
  };
  sample();
  const timer = setInterval(sample, RSS_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** prom-client's event-loop delay figures (reset by every scrape) and the held callers the api counts. */
async function scrape(metricsUrl: string): Promise<MetricsSample> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    at: Date.now(),
    lagP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
    lagMaxMs: value('nodejs_eventloop_lag_max_seconds') * 1000,
    waiters: value('gateway_sync_waiters'),
  };
}

/** Scrapes every METRICS_EVERY_MS until stopped; a scrape that fails is left out. */
function watchMetrics(metricsUrl: string): { stop(): Promise<MetricsSample[]> } {
  const samples: MetricsSample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(METRICS_EVERY_MS);
      const sample = await scrape(metricsUrl).catch(() => undefined);
      if (sample) samples.push(sample);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return samples;
    },
  };
}

/** /health/live every HEALTH_EVERY_MS from bench/health-probe.js, in a worker thread. */
function watchHealth(apiUrl: string): { stop(): Promise<Probe[]> } {
  const thread = new Worker(path.join(__dirname, 'health-probe.js'), {
    workerData: { url: `${apiUrl}/health/live`, everyMs: HEALTH_EVERY_MS },
  });
  const probes = new Promise<Probe[]>((resolve, reject) => {
    thread.once('message', resolve);
    thread.once('error', reject);
  });
  // A failed thread is reported by stop(), at the end of the hold, rather than ending the run in the middle of it.
  probes.catch(() => undefined);
  return {
    async stop() {
      thread.postMessage('stop');
      const result = await probes;
      await thread.terminate();
      return result;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printSetup(opts: Options, pids: Map<string, number>, timeoutMs: number): void {
  const workers = Number(process.env.BENCH_WORKERS ?? 1);
  const slots = workers * UPSTREAM_CONNECTIONS_PER_WORKER;
  const limits = [
    ['bench', openFilesLimit('self')] as const,
    ...['api', 'worker', 'fake'].map((name) => [name, openFilesLimit(pids.get(name) ?? 0)] as const),
  ];
  print('Held connections benchmark');
  printMachine();
  print(`  open files: ${limits.map(([name, limit]) => `${name} ${limit}`).join(', ')} (soft limits)`);
  // The bench, the api and the fake each hold a socket per call; a worker one per call it has upstream.
  const short = limits.filter(([name, limit]) => name !== 'worker' && Number(limit) < opts.requests + FD_MARGIN);
  if (short.length) {
    print(
      `  WARNING:    ${short.map(([name]) => name).join(', ')} may open fewer than ${opts.requests} + ${FD_MARGIN} files: expect EMFILE errors (the hard limit could not be raised; see bench/README.md)`,
    );
  }
  print(
    `  upstream:   the fake answers every call after ${opts.upstreamMs} ms; ${workers} worker(s) × ${UPSTREAM_CONNECTIONS_PER_WORKER} upstream connections = ${slots} calls in flight at most (${slots >= opts.requests ? 'all at once' : `${Math.ceil(opts.requests / slots)} waves`})`,
  );
  print(`  request:    POST /v1/embeddings ${BODY}`);
  print(`  warm-up:    ${opts.warmup} held calls first (--warmup)`);
  print(
    `  calls:      ${opts.requests}, opened in batches of ${opts.batch} (each once the previous one connected, then ${opts.pauseMs} ms), no keep-alive; given up after ${timeoutMs} ms (SYNC_TIMEOUT_MS + 5 s)`,
  );
  print();
}

const msRow = (label: string, s: Stats, extra = ''): string[] => [label, fmt(s.p50), fmt(s.p99), fmt(s.max), extra];

/** The probes started within [from, to). */
function probesIn(probes: Probe[], from: number, to: number): Probe[] {
  return probes.filter((p) => p.at >= from && p.at < to);
}

function healthRow(label: string, probes: Probe[]): string[] {
  return msRow(
    label,
    stats(probes.map((p) => p.ms)),
    `${probes.length} (${probes.filter((p) => !p.ok).length} failed)`,
  );
}

function phasesOf(calls: Call[], start: number, opened: number): Phases {
  const ends = calls.map((c) => c.endedAt ?? Date.now());
  return {
    start,
    opened,
    firstAnswer: Math.max(opened, Math.min(...ends)),
    lastAnswer: Math.max(...ends),
  };
}

function printOutcomes(calls: Call[], phases: Phases): void {
  const seconds = (at: number) => `${fmt((at - phases.start) / 1000, 1)} s`;
  print(
    `Opening: ${calls.length} calls sent and connected in ${seconds(phases.opened)}; connect time p50 / p99 / max ${describeStats(stats(calls.filter((c) => c.connectMs !== undefined).map((c) => c.connectMs!)))} ms`,
  );
  print(
    `Answers: the first ${seconds(Math.min(...calls.map((c) => c.endedAt ?? Infinity)))} and the last ${seconds(phases.lastAnswer)} after the first send`,
  );
  print(table([['outcome', 'calls'], ...tally(calls.map((c) => c.outcome ?? 'none')).map(([o, n]) => [o, String(n)])]));
  print(
    `  time per call (send → last byte), ms: p50 / p99 / max ${describeStats(stats(calls.map((c) => (c.endedAt ?? Date.now()) - c.sentAt)))}`,
  );
  print();
}

const describeStats = (s: Stats) => `${fmt(s.p50)} / ${fmt(s.p99)} / ${fmt(s.max)}`;

function printHealth(probes: Probe[], idle: Probe[], phases: Phases): Probe[] {
  const held = probesIn(probes, phases.start, phases.lastAnswer);
  print(`/health/live, every ${HEALTH_EVERY_MS} ms from a worker thread (ms)`);
  print(
    table([
      ['', 'p50', 'p99', 'max', 'probes'],
      healthRow('idle, before the first call', idle),
      healthRow('  opening (first send → all connected)', probesIn(probes, phases.start, phases.opened)),
      healthRow('  holding (→ first answer)', probesIn(probes, phases.opened, phases.firstAnswer)),
      healthRow('  answering (→ last answer)', probesIn(probes, phases.firstAnswer, phases.lastAnswer)),
      healthRow('whole hold', held),
    ]),
  );
  print();
  return held;
}

function printApi(
  memory: { before: number; peak: { api: number; workers: number }; after: number },
  cpu: number,
  metrics: MetricsSample[],
  requests: number,
  start: number,
  ownLag: { p99: number; max: number },
): void {
  const worstP99 = Math.max(...metrics.map((m) => m.lagP99Ms));
  const worstMax = Math.max(...metrics.map((m) => m.lagMaxMs));
  const waiters = Math.max(...metrics.map((m) => m.waiters));
  print('api during the hold');
  print(
    `  RSS: ${fmt(memory.before, 0)} MB before, peak ${fmt(memory.peak.api, 0)} MB (+${fmt(memory.peak.api - memory.before, 0)} MB, ${fmt(((memory.peak.api - memory.before) * 1024) / requests, 1)} KB per held call), ${fmt(memory.after, 0)} MB after`,
  );
  print(`  workers' RSS together, peak: ${fmt(memory.peak.workers, 0)} MB`);
  print(`  CPU: ${fmt(cpu)} s over the hold, ${fmt((cpu * 1000) / requests)} ms per held call`);
  print(
    `  event-loop delay (prom-client, per ${METRICS_EVERY_MS / 1000}-s scrape, ${metrics.length} scrapes): worst p99 ${fmt(worstP99)} ms, max ${fmt(worstMax)} ms; p99 per scrape p50 ${fmt(stats(metrics.map((m) => m.lagP99Ms)).p50)} ms`,
  );
  const allHeld = metrics.find((m) => m.waiters >= requests);
  print(
    `  held callers (gateway_sync_waiters), peak over the scrapes: ${Number.isFinite(waiters) ? waiters : 'n/a'}` +
      (allHeld
        ? `; all ${requests} held by the scrape ${fmt((allHeld.at - start) / 1000, 1)} s after the first send`
        : ''),
  );
  print(
    `  this bench's own event-loop delay: p99 ${fmt(ownLag.p99)} ms, max ${fmt(ownLag.max)} ms (the client kept up when small)`,
  );
  print();
}

function printSummary(opts: Options, calls: Call[], peakRss: number, held: Probe[]): void {
  const ok = calls.filter((c) => c.outcome === '200').length;
  const health = stats(held.map((p) => p.ms));
  const otherwise = tally(calls.filter((c) => c.outcome !== '200').map((c) => c.outcome ?? 'none'));
  print('Summary');
  print(
    table([
      ['', 'measured', 'target', ''],
      ['calls answered 200', `${ok} / ${opts.requests}`, `all ${opts.requests}`, verdict(ok === opts.requests)],
      ['  the others', describeTally(otherwise), '', ''],
      ['api peak RSS', `${fmt(peakRss, 0)} MB`, `< ${TARGETS.rssMb} MB`, verdict(peakRss < TARGETS.rssMb)],
      [
        '/health/live p99 during the hold',
        `${fmt(health.p99)} ms`,
        `< ${TARGETS.healthP99Ms} ms`,
        verdict(health.p99 < TARGETS.healthP99Ms),
      ],
      ['  (p50 / max)', `${fmt(health.p50)} / ${fmt(health.max)} ms`, '', ''],
    ]),
  );
  if (opts.requests !== 10_000 || opts.upstreamMs !== 20_000)
    print(
      `  (the targets are stated for 10000 calls and a 20000 ms upstream; this run: ${opts.requests} and ${opts.upstreamMs} ms)`,
    );
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = options();
  const apiUrl = env('BENCH_API_URL', COMMAND);
  const apiKey = env('BENCH_API_KEY', COMMAND);
  const metricsUrl = env('BENCH_API_METRICS_URL', COMMAND);
  const pids = servicePids();
  if (!pids.get('api')) throw new Error(`BENCH_PIDS names no api: run this through \`${COMMAND}\``);
  const timeoutMs = syncTimeoutMs() + 5000;
  printSetup(opts, pids, timeoutMs);

  // Fail fast on a key the api refuses, without waiting for the slow upstream.
  const models = await fetch(`${apiUrl}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
  if (models.status !== 200) throw new Error(`GET /v1/models answered ${models.status}: ${await models.text()}`);

  await warmUp(opts, new URL(apiUrl), apiKey, timeoutMs);
  const health = watchHealth(apiUrl);
  await sleep(IDLE_PROBE_MS);
  await scrape(metricsUrl);
  const ownLag = monitorEventLoopDelay({ resolution: 10 });
  ownLag.enable();
  const before = rssMb(pids.get('api')!);
  const cpuBefore = cpuSeconds(pids.get('api')!);
  const memory = watchMemory(pids);
  const metrics = watchMetrics(metricsUrl);
  const start = Date.now();

  const sent = await openAll(opts.requests, opts, new URL(apiUrl), apiKey, timeoutMs);
  const opened = Date.now();
  print(`all ${sent.length} calls open after ${fmt((opened - start) / 1000, 1)} s; waiting for the answers`);
  await Promise.all(sent.map((s) => s.ended));
  const calls = sent.map((s) => s.call);
  const peak = memory.stop();
  const [metricSamples, probes] = await Promise.all([metrics.stop(), health.stop()]);
  ownLag.disable();
  const after = rssMb(pids.get('api')!);
  const cpu = cpuSeconds(pids.get('api')!) - cpuBefore;
  print();

  const phases = phasesOf(calls, start, opened);
  printOutcomes(calls, phases);
  const held = printHealth(probes, probesIn(probes, 0, start), phases);
  printApi({ before, peak, after }, cpu, metricSamples, opts.requests, start, {
    p99: ownLag.percentile(99) / 1e6,
    max: ownLag.max / 1e6,
  });
  printSummary(opts, calls, peak.api, held);
}

runBench('held', main, () => agent.destroy());
