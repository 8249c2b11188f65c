/**
 * Reply-wait benchmark: how a held caller learns that its job finished, two ways, on the same Redis and BullMQ.
 *
 * - `waitUntilFinished`: BullMQ's own `job.waitUntilFinished(queueEvents)`, one QueueEvents reader per process.
 * - `reply channel`: what the gateway does (docs/decisions/reply-channel.md): the job carries the caller's channel,
 *   the worker stores the outcome and publishes it in one MULTI, and one subscription per process wakes the waiter.
 *
 * The job does nothing (an instant processor), so the figures are the cost of the waiting alone. Each variant runs
 * one caller at a time (latency) and 50 at once (throughput), in alternating rounds so that a pause of the machine
 * lands on both alike. Completed jobs are trimmed by age and count in both, as the gateway does. Asserts nothing.
 *
 * Run: npm run bench:reply-wait [-- --seconds 8 --rounds 3]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Job, Queue, QueueEvents, Worker } from 'bullmq';
import Redis from 'ioredis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '8' }, rounds: { type: 'string', default: '3' } },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = 50;
const JOB_OPTIONS = { removeOnComplete: { age: 3600, count: 20_000 }, removeOnFail: { age: 3600 } };

interface Variant {
  name: string;
  /** Enqueues one job and resolves when the caller would have its answer. */
  call(id: string): Promise<void>;
  close(): Promise<void>;
}

async function waitUntilFinishedVariant(connection: { host: string; port: number }): Promise<Variant> {
  const queue = new Queue('wuf', { connection, prefix: 'bench' });
  // Every waiting call adds a listener to the queue (and to the QueueEvents): one per caller is expected here.
  queue.setMaxListeners(CONCURRENCY * 2);
  const events = new QueueEvents('wuf', { connection, prefix: 'bench' });
  const worker = new Worker('wuf', () => Promise.resolve({ ok: true }), {
    connection,
    prefix: 'bench',
    concurrency: CONCURRENCY,
  });
  events.setMaxListeners(CONCURRENCY * 2);
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
  return {
    name: 'waitUntilFinished',
    async call(id) {
      const job = await queue.add('job', {}, { ...JOB_OPTIONS, jobId: id });
      await job.waitUntilFinished(events, 30_000);
    },
    close: async () => void (await Promise.all([worker.close(), events.close(), queue.close()])),
  };
}

async function replyChannelVariant(connection: { host: string; port: number }): Promise<Variant> {
  const channel = 'bench:reply:inst_1';
  const queue = new Queue('reply', { connection, prefix: 'bench' });
  const commands = new Redis(connection);
  const subscriber = new Redis(connection);
  const waiters = new Map<string, () => void>();
  subscriber.on('message', (_channel: string, id: string) => {
    waiters.get(id)?.();
    waiters.delete(id);
  });
  await subscriber.subscribe(channel);
  const worker = new Worker(
    'reply',
    async (job: Job<{ replyTo: string }>) => {
      await commands
        .multi()
        .set(`bench:outcome:${job.id}`, '{"ok":true}', 'EX', 300)
        .publish(job.data.replyTo, job.id ?? '')
        .exec();
      return { ok: true };
    },
    { connection, prefix: 'bench', concurrency: CONCURRENCY },
  );
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  return {
    name: 'reply channel',
    async call(id) {
      const answered = new Promise<void>((resolve) => waiters.set(id, resolve));
      await queue.add('job', { replyTo: channel }, { ...JOB_OPTIONS, jobId: id });
      await answered;
    },
    close: async () => {
      await Promise.all([worker.close(), queue.close()]);
      subscriber.disconnect();
      commands.disconnect();
    },
  };
}

/** Calls from `callers` loops for SECONDS; returns requests/s and the p50/p99 of one call in ms. */
async function load(
  variant: Variant,
  callers: number,
  round: number,
): Promise<{ rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  const end = Date.now() + SECONDS * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (Date.now() < end) {
        const started = process.hrtime.bigint();
        await variant.call(`r${round}c${callers}n${next++}`);
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: latencies.length / SECONDS, p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-reply-wait-'));
  const port: number = await services.freePort();
  const redis = await services.startRedis({ port, dir: path.join(dir, 'redis'), logFile: path.join(dir, 'redis.log') });
  try {
    const connection = { host: '127.0.0.1', port };
    const variants = [await waitUntilFinishedVariant(connection), await replyChannelVariant(connection)];
    const results = new Map<string, { one: { p50: number; p99: number }[]; many: number[] }>(
      variants.map((v) => [v.name, { one: [], many: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
        const one = await load(variant, 1, round);
        const many = await load(variant, CONCURRENCY, round);
        results.get(variant.name)?.one.push(one);
        results.get(variant.name)?.many.push(many.rps);
      }
    }
    const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? NaN;
    process.stdout.write(`reply wait, ${ROUNDS} alternating rounds of ${SECONDS} s, instant job (median of rounds)\n`);
    for (const [name, { one, many }] of results) {
      const p50 = median(one.map((r) => r.p50)).toFixed(2);
      const p99 = median(one.map((r) => r.p99)).toFixed(2);
      process.stdout.write(
        `  ${name.padEnd(18)} one caller: p50 ${p50} ms, p99 ${p99} ms   ${CONCURRENCY} callers: ${median(many).toFixed(0)} requests/s\n`,
      );
    }
    await Promise.all(variants.map((variant) => variant.close()));
  } finally {
    await services.stop(redis);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:reply-wait: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
