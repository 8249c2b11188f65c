/**
 * Capacity: what one request of each kind costs each process, and what that means for sizing.
 *
 * For each scenario it sends --requests calls (after --warmup) at --connections at once, waits until the stack is
 * idle again (the worker writes records in windows after it has answered), and reads per request:
 * - CPU time of the api, the worker, Redis, FerretDB and PostgreSQL (its server and every backend), from /proc,
 *   less what each spends idle over the same time (BullMQ's timers, metric sampling);
 * - Redis commands, from INFO commandstats, by command;
 * - database commands, from FerretDB's own metrics (`ferretdb_client_requests_total`), by command;
 * - documents written (rows PostgreSQL inserted, updated or deleted), which batching does not fold.
 * CPU time per request is what sizing needs: a Node process uses one core for its JavaScript, so one core of CPU time
 * per second is the most a process serves. The figures hold under the other processes' load, unlike a throughput
 * measured with everything on one machine (printed too). Run with `npm run bench:capacity`; figures only.
 * Options: --requests N (3000), --warmup N (300), --connections N (32), --scenarios a,b (all).
 */
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { Agent, request } from 'undici';
import { cpuSeconds, env, fmt, print, printMachine, runBench, servicePids, table } from './shared';
import { childPids, commandCounts, ferretDbCommands, rowsWritten, sizingRows, type Cost } from './capacity/costs';

const API = env('BENCH_API_URL', 'npm run bench:capacity');
const KEY = env('BENCH_API_KEY', 'npm run bench:capacity');
const FERRETDB_METRICS = env('BENCH_FERRETDB_METRICS_URL', 'npm run bench:capacity');
const POSTGRES = {
  psql: env('BENCH_PSQL', 'npm run bench:capacity'),
  url: env('BENCH_POSTGRES_URL', 'npm run bench:capacity'),
};
const IDLE_PROBE_MS = 3_000;
/** Past PostgreSQL's 10 s: every idle backend has reported its row counts by then. */
const ROW_STATS_DELAY_MS = 11_000;

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  expectStatus: number;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'embeddings',
    method: 'POST',
    path: '/v1/embeddings',
    body: { model: 'text-embedding-v4', input: 'the quick brown fox', dimensions: 256 },
    expectStatus: 200,
  },
  {
    name: 'embeddings, X-Async',
    method: 'POST',
    path: '/v1/embeddings',
    body: { model: 'text-embedding-v4', input: 'the quick brown fox', dimensions: 256 },
    headers: { 'x-async': 'enable' },
    expectStatus: 202,
  },
  {
    name: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: 'x-chat', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16 },
    expectStatus: 200,
  },
  {
    name: 'chat, streamed',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: 'x-chat', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16, stream: true },
    expectStatus: 200,
  },
  { name: 'models list', method: 'GET', path: '/v1/models', expectStatus: 200 },
];

const PROCESSES = ['api', 'worker', 'redis', 'ferretdb', 'postgres'] as const;
type ProcessName = (typeof PROCESSES)[number];

const agent = new Agent({ connections: 256, pipelining: 1 });
const redis = new Redis(env('BENCH_REDIS_URL', 'npm run bench:capacity'), { lazyConnect: true });

async function call(scenario: Scenario): Promise<void> {
  const response = await request(`${API}${scenario.path}`, {
    method: scenario.method,
    dispatcher: agent,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...scenario.headers },
    body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
  });
  const text = await response.body.text();
  if (response.statusCode !== scenario.expectStatus)
    throw new Error(`${scenario.name}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function load(scenario: Scenario, count: number, connections: number): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        next++;
        await call(scenario);
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** CPU seconds so far of each process; PostgreSQL's includes every backend it has forked. */
function cpuByProcess(pids: Map<string, number>): Record<ProcessName, number> {
  const of = (name: ProcessName) => {
    const pid = pids.get(name);
    if (!pid) return NaN;
    if (name !== 'postgres') return cpuSeconds(pid);
    return [pid, ...childPids(pid)].reduce((sum, each) => sum + (cpuSeconds(each) || 0), 0);
  };
  return Object.fromEntries(PROCESSES.map((name) => [name, of(name)])) as Record<ProcessName, number>;
}

interface Reading {
  at: number;
  cpu: Record<ProcessName, number>;
  redis: Map<string, number>;
  database: Map<string, number>;
}

async function read(pids: Map<string, number>): Promise<Reading> {
  const [info, metrics] = await Promise.all([
    redis.info('commandstats'),
    request(FERRETDB_METRICS).then((r) => r.body.text()),
  ]);
  return { at: Date.now(), cpu: cpuByProcess(pids), redis: commandCounts(info), database: ferretDbCommands(metrics) };
}

/** Waits until the worker has used no CPU for a second: every record and usage write after the answers is done. */
async function settle(pids: Map<string, number>): Promise<void> {
  const worker = pids.get('worker')!;
  let last = cpuSeconds(worker);
  for (let quiet = 0; quiet < 2;) {
    await sleep(500);
    const now = cpuSeconds(worker);
    quiet = now - last < 0.01 ? quiet + 1 : 0;
    last = now;
  }
}

/** What each process spends per second with no requests at all, subtracted from every scenario. */
async function idleRates(pids: Map<string, number>): Promise<Cost> {
  await settle(pids);
  const before = await read(pids);
  await sleep(IDLE_PROBE_MS);
  const after = await read(pids);
  return costBetween(before, after, (after.at - before.at) / 1000);
}

function difference(after: Map<string, number>, before: Map<string, number>, per: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, count] of after) {
    const delta = count - (before.get(name) ?? 0);
    if (delta > 0) out.set(name, delta / per);
  }
  return out;
}

function costBetween(before: Reading, after: Reading, per: number): Cost {
  return {
    cpu: Object.fromEntries(PROCESSES.map((name) => [name, (after.cpu[name] - before.cpu[name]) / per])),
    redis: difference(after.redis, before.redis, per),
    database: difference(after.database, before.database, per),
  };
}

/** A scenario's cost per request, less the idle cost of the time it took. */
function lessIdle(cost: Cost, idle: Cost, seconds: number, requests: number): Cost {
  const share = seconds / requests;
  const minus = (a: Map<string, number>, b: Map<string, number>) =>
    new Map([...a].map(([name, n]) => [name, Math.max(0, n - (b.get(name) ?? 0) * share)]));
  return {
    cpu: Object.fromEntries(
      Object.entries(cost.cpu).map(([name, s]) => [name, Math.max(0, s - (idle.cpu[name] ?? 0) * share)]),
    ),
    redis: minus(cost.redis, idle.redis),
    database: minus(cost.database, idle.database),
  };
}

const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .filter(([, count]) => count >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, count]) => `${name} ${fmt(count)}`)
    .join(', ');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '3000' },
      warmup: { type: 'string', default: '300' },
      connections: { type: 'string', default: '32' },
      scenarios: { type: 'string' },
    },
  });
  const requests = Number(values.requests);
  const warmup = Number(values.warmup);
  const connections = Number(values.connections);
  const chosen = values.scenarios?.split(',').map((s) => s.trim());
  const scenarios = chosen ? SCENARIOS.filter((s) => chosen.includes(s.name)) : SCENARIOS;
  const pids = servicePids();
  await redis.connect();

  print('bench:capacity — cost per request by process, and sizing');
  printMachine();
  print(`  load:       ${requests} requests per scenario after ${warmup} warm-up, ${connections} at once`);
  print();

  const results: { scenario: Scenario; rps: number; cost: Cost; documents: number }[] = [];
  for (const scenario of scenarios) {
    await load(scenario, warmup, connections);
    const idle = await idleRates(pids);
    await sleep(ROW_STATS_DELAY_MS);
    const rowsBefore = rowsWritten(POSTGRES.psql, POSTGRES.url);
    const before = await read(pids);
    const seconds = await load(scenario, requests, connections);
    await settle(pids);
    const after = await read(pids);
    await sleep(ROW_STATS_DELAY_MS);
    const documents = (rowsWritten(POSTGRES.psql, POSTGRES.url) - rowsBefore) / requests;
    const cost = lessIdle(costBetween(before, after, requests), idle, (after.at - before.at) / 1000, requests);
    results.push({ scenario, rps: requests / seconds, cost, documents });
    print(`  ${scenario.name}: ${fmt(requests / seconds, 0)} req/s with every process on this machine`);
    print(`    Redis:    ${fmt(sum(cost.redis))} commands per request (${top(cost.redis, 8)})`);
    print(
      `    database: ${fmt(sum(cost.database))} commands per request (${top(cost.database, 8) || 'none'}), ${fmt(documents)} documents written`,
    );
  }

  print();
  print('  CPU time per request (µs), and the most one core of each serves (requests/s):');
  print(
    table([
      ['scenario', ...PROCESSES.map((p) => `${p} µs`), 'api /core', 'worker /core', 'Redis cmds', 'db cmds', 'db docs'],
      ...results.map(({ scenario, cost, documents }) => [
        scenario.name,
        ...PROCESSES.map((p) => fmt(cost.cpu[p] * 1e6, 0)),
        fmt(1 / cost.cpu.api, 0),
        cost.cpu.worker > 1e-6 ? fmt(1 / cost.cpu.worker, 0) : '–',
        fmt(sum(cost.redis), 1),
        fmt(sum(cost.database), 2),
        fmt(documents, 2),
      ]),
    ]),
  );
  print();
  print('  Sizing at 60 % CPU per core (processes are single-threaded JavaScript; Redis runs commands on one core):');
  for (const { scenario, cost, documents } of results.filter((r) => r.scenario.path !== '/v1/models')) {
    print(`  ${scenario.name}:`);
    print(table(sizingRows(cost, documents, [100, 1_000, 10_000])));
  }
}

runBench('capacity', main, async () => {
  redis.disconnect();
  await agent.close();
});
