/**
 * Where the floor of the gateway's design is: the unloaded latency added by a bare proxy (one process, no queue), a
 * bare queue-backed call (bench/floor/bare-queue.ts: api → BullMQ → PromptWorker → upstream → PUBLISH → api, with
 * nothing of the gateway's own), the same in one process (api and worker together), the gateway, and the peer
 * gateway when one runs (`--peer portkey`), in one run against the same fake upstream with the same embeddings
 * request. The gateway's added latency minus the bare queue's is what its own steps cost (auth, validation, limits,
 * records, usage, metrics, logs); the bare queue's minus the bare proxy's is what the queue's hops cost on this
 * machine. Prints figures; asserts nothing.
 *
 * Run it with `npm run bench:floor` (scripts/bench.js starts the services and sets the BENCH_* variables).
 * Options: --requests N (sequential requests per target, 3000), --warmup N (500), --block N (requests per target
 * before the next target takes its turn, 100: the targets interleave, so a slower minute weighs on all alike).
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { env, fmt, PEERS, print, printMachine, runBench, Stats, stats, table } from './shared';

const BODY = JSON.stringify({ model: 'text-embedding-v4', input: 'the quick brown fox', dimensions: 256 });
const COMMAND = 'npm run bench:floor';
const READY_TIMEOUT_MS = 60_000;

interface Target {
  name: string;
  what: string;
  url: string;
  headers: Record<string, string>;
}

const agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
const children: ChildProcess[] = [];

function options() {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '3000' },
      warmup: { type: 'string', default: '500' },
      block: { type: 'string', default: '100' },
    },
  });
  const count = (flag: keyof typeof values) => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a whole number ≥ 1`);
    return n;
  };
  return { requests: count('requests'), warmup: count('warmup'), block: count('block') };
}

/** Starts a reference process (bench/floor/) under ts-node, stopped with this one. */
function startReference(file: string, args: string[]): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      path.join(__dirname, 'floor', file),
      ...args,
    ],
    { cwd: path.resolve(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  return child;
}

/** The port a reference server prints once it listens (`listening <port>`). */
function portOf(child: ChildProcess, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${file} did not listen within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const port = /^listening (\d+)$/.exec(line)?.[1];
      if (!port) return;
      clearTimeout(timer);
      resolve(Number(port));
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with code ${code}`)));
  });
}

async function timeOne(target: Target): Promise<{ ms: number; status: number }> {
  const start = process.hrtime.bigint();
  const response = await request(target.url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', ...target.headers },
    body: BODY,
  });
  await response.body.arrayBuffer();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, status: response.statusCode };
}

/** Until the first 200 (the bare queue's worker may still be connecting), then `count` more. */
async function warmUp(target: Target, count: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const { status } = await timeOne(target).catch(() => ({ status: 0 }));
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`${target.name} answered ${status}, not 200`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (let i = 0; i < count; i++) await timeOne(target);
}

async function main(): Promise<void> {
  const opts = options();
  const upstream = env('BENCH_UPSTREAM_URL', COMMAND);
  const redis = env('BENCH_REDIS_URL', COMMAND);
  const embeddings = `${upstream}/embeddings`;
  const queueArgs = ['--redis', redis, '--upstream', embeddings];
  startReference('bare-queue.ts', ['--role', 'worker', ...queueArgs]);
  const proxyPort = await portOf(startReference('bare-proxy.ts', ['--upstream', embeddings]), 'bare-proxy.ts');
  const queuePort = await portOf(startReference('bare-queue.ts', ['--role', 'api', '--redis', redis]), 'bare-queue.ts');
  const oneProcessArgs = ['--role', 'both', '--queue', 'bench-floor-one-process', ...queueArgs];
  const oneProcessPort = await portOf(startReference('bare-queue.ts', oneProcessArgs), 'bare-queue.ts');
  const none = { authorization: 'Bearer none' };
  const targets: Target[] = [
    { name: 'direct', what: 'the fake upstream itself', url: embeddings, headers: none },
    { name: 'bare proxy', what: 'one process, no queue', url: `http://127.0.0.1:${proxyPort}`, headers: none },
    {
      name: 'bare queue',
      what: 'api → BullMQ → PromptWorker → PUBLISH, no gateway steps',
      url: `http://127.0.0.1:${queuePort}`,
      headers: none,
    },
    {
      name: 'bare queue, 1 process',
      what: 'the same with api and worker in one process',
      url: `http://127.0.0.1:${oneProcessPort}`,
      headers: none,
    },
    {
      name: 'gateway',
      what: 'this gateway (npm start stack)',
      url: `${env('BENCH_API_URL', COMMAND)}/v1/embeddings`,
      headers: { authorization: `Bearer ${env('BENCH_API_KEY', COMMAND)}` },
    },
  ];
  const peerUrl = process.env.BENCH_PEER_URL;
  if (peerUrl) {
    const name = process.env.BENCH_PEER_NAME ?? '';
    const peer = PEERS[name];
    if (!peer) throw new Error(`unknown peer gateway "${name}" (known: ${Object.keys(PEERS).join(', ')})`);
    targets.push({
      name,
      what: `the peer gateway (${peer.package})`,
      url: `${peerUrl}/v1/embeddings`,
      headers: { ...none, ...peer.headers(upstream) },
    });
  }

  print('Floor of the design: unloaded added latency, one run');
  printMachine();
  print(
    `  requests:   ${opts.requests} sequential per target after ${opts.warmup} of warm-up, in turns of ${opts.block}`,
  );
  print();
  for (const target of targets) await warmUp(target, opts.warmup);
  const samples = new Map(targets.map((target) => [target, [] as number[]]));
  for (let done = 0; done < opts.requests; done += opts.block) {
    for (const target of targets) {
      for (let i = 0; i < Math.min(opts.block, opts.requests - done); i++) {
        const { ms, status } = await timeOne(target);
        if (status !== 200) throw new Error(`${target.name} answered ${status}`);
        samples.get(target)!.push(ms);
      }
    }
  }
  const measured = new Map<Target, Stats>([...samples].map(([target, values]) => [target, stats(values)]));
  const direct = measured.get(targets[0])!;
  const added = (target: Target) => {
    const { p50, p99 } = measured.get(target)!;
    return { p50: p50 - direct.p50, p99: p99 - direct.p99 };
  };
  const rows = [['target', 'p50 ms', 'p99 ms', 'added p50', 'added p99']];
  for (const target of targets) {
    const { p50, p99 } = measured.get(target)!;
    const more = target === targets[0] ? ['', ''] : [fmt(added(target).p50), fmt(added(target).p99)];
    rows.push([target.name, fmt(p50), fmt(p99), ...more]);
  }
  print(table(rows));
  print();
  for (const target of targets.slice(1)) print(`  ${target.name}: ${target.what}`);
  const [, proxy, queue, queueInOneProcess, gateway] = targets;
  print();
  const differences: [string, number][] = [
    ["the queue's hops (bare queue − bare proxy)", added(queue).p50 - added(proxy).p50],
    [
      'one process instead of two (bare queue, 1 process − bare queue)',
      added(queueInOneProcess).p50 - added(queue).p50,
    ],
    ["the gateway's own steps (gateway − bare queue)", added(gateway).p50 - added(queue).p50],
  ];
  for (const [what, ms] of differences) print(`  ${`${what}, added p50:`.padEnd(76)} ${fmt(ms)} ms`);
}

runBench('floor', main, () => {
  for (const child of children) child.kill();
  void agent.close();
});
