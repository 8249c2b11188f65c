/**
 * Where one unloaded request's time goes, stage by stage, and how many Redis round trips it makes.
 *
 * Sends sequential embeddings requests through the gateway while Redis MONITOR records every command with its
 * microsecond timestamp and the connection it came from. Redis and this process read the same wall clock, so the
 * commands of request i are those between its send and the last byte of its answer, and the stages fall out of the
 * commands that mark them:
 *
 *   api in       send → the api's job add reaches Redis      (HTTP parse, auth, validation, admission)
 *   pick-up      job add → the worker's moveToActive         (the fetch queued behind the marker wait, or BullMQ's own)
 *   worker       moveToActive → the outcome delivery script  (job read, upstream call, settling the limits)
 *   reply        delivery script → last byte at the client   (publish, api wake-up, response write)
 *
 * MONITOR slows Redis a little, so the total here is above bench:overhead's; compare stages between commits with
 * this bench, and latency with bench:overhead. Run it with `npm run bench:stages [-- --requests 500]`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { Agent, request } from 'undici';
import { bullmqScriptNames } from '../test/helpers/bullmq-scripts';
import { runBench } from './shared';

const BODY = JSON.stringify({ model: 'text-embedding-v4', input: 'the quick brown fox', dimensions: 256 });

interface Command {
  /** Wall clock, ms with µs precision. */
  at: number;
  client: string;
  name: string;
}

interface Exchange {
  sentAt: number;
  doneAt: number;
  status: number;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through \`npm run bench:stages\``);
  return value;
}

const now = () => performance.timeOrigin + performance.now();

/** A readable name for one command: BullMQ scripts by name, other scripts by the tail of their first key. */
function commandName(args: string[], scripts: Map<string, string>): string {
  const [verb, ...rest] = args;
  const lower = verb.toLowerCase();
  if (lower !== 'evalsha' && lower !== 'eval') return lower;
  const known = lower === 'evalsha' ? scripts.get(rest[0]) : undefined;
  if (known) return known;
  const firstKey = Number(rest[1]) > 0 ? rest[2] : '';
  return `script(${
    firstKey
      .split(':')
      .slice(-1)[0]
      .replace(/^task_\w+$/, '{task}') || '?'
  })`;
}

/** Connection names by address, from CLIENT LIST (ioredis connectionName; BullMQ's own are unnamed). */
async function clientNames(redis: Redis): Promise<Map<string, string>> {
  const list = (await redis.client('LIST')) as string;
  const names = new Map<string, string>();
  for (const line of list.split('\n')) {
    const addr = /addr=(\S+)/.exec(line)?.[1];
    const name = /name=(\S*)/.exec(line)?.[1];
    if (addr) names.set(addr, name || `unnamed@${addr.split(':')[1]}`);
  }
  return names;
}

/** Parses redis-cli's MONITOR lines: `1700000000.123456 [0 127.0.0.1:5555] "evalsha" "…" …`. */
function readFeed(file: string, scripts: Map<string, string>): Command[] {
  const commands: Command[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^(\d+\.\d+) \[\d+ ([^\]]+)\] (.*)$/.exec(line);
    if (!match) continue;
    const args = [...match[3].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
    commands.push({ at: Number(match[1]) * 1000, client: match[2], name: commandName(args, scripts) });
  }
  return commands;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { requests: { type: 'string', default: '500' }, warmup: { type: 'string', default: '300' } },
  });
  const count = Number(values.requests);
  const warmup = Number(values.warmup);
  const url = `${env('BENCH_API_URL')}/v1/embeddings`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${env('BENCH_API_KEY')}` };
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  const send = async (): Promise<Exchange> => {
    const sentAt = now();
    const response = await request(url, { method: 'POST', headers, body: BODY, dispatcher: agent });
    await response.body.arrayBuffer();
    return { sentAt, doneAt: now(), status: response.statusCode };
  };
  for (let i = 0; i < warmup; i++) await send();

  const redisUrl = env('BENCH_REDIS_URL');
  const admin = new Redis(redisUrl);
  const names = await clientNames(admin);
  const scripts = bullmqScriptNames();
  // redis-cli writes the feed to a file, so reading it does not compete with the timing of the requests here.
  const feedFile = path.join(os.tmpdir(), `gw-stages-${process.pid}.monitor`);
  const feed = fs.openSync(feedFile, 'w');
  const monitor = spawn('redis-cli', ['-u', redisUrl, 'monitor'], { stdio: ['ignore', feed, 'inherit'] });
  fs.closeSync(feed);
  await new Promise((r) => setTimeout(r, 200));

  const exchanges: Exchange[] = [];
  for (let i = 0; i < count; i++) exchanges.push(await send());
  await new Promise((r) => setTimeout(r, 200));
  monitor.kill();
  await new Promise((r) => monitor.once('exit', r));
  const commands = readFeed(feedFile, scripts);
  fs.rmSync(feedFile, { force: true });
  // Connections opened since the first look (none expected) get their names too.
  for (const [addr, name] of await clientNames(admin)) if (!names.has(addr)) names.set(addr, name);
  await admin.quit();
  await agent.close();

  const stages = { apiIn: [] as number[], pickUp: [] as number[], worker: [] as number[], reply: [] as number[] };
  const total: number[] = [];
  const perRequest = new Map<string, number>();
  let complete = 0;
  const timelines: { total: number; lines: string[] }[] = [];
  let cursor = 0;
  commands.sort((a, b) => a.at - b.at);
  for (const exchange of exchanges) {
    while (cursor < commands.length && commands[cursor].at < exchange.sentAt) cursor++;
    const mine: Command[] = [];
    for (let j = cursor; j < commands.length && commands[j].at <= exchange.doneAt; j++) mine.push(commands[j]);
    for (const c of mine) {
      const key = `${names.get(c.client) ?? c.client} ${c.name}`;
      perRequest.set(key, (perRequest.get(key) ?? 0) + 1);
    }
    timelines.push({
      total: exchange.doneAt - exchange.sentAt,
      lines: mine
        .filter((c) => c.client !== 'lua')
        .map(
          (c) =>
            `${(c.at - exchange.sentAt).toFixed(3).padStart(8)}  ${names.get(c.client) ?? c.client} (${c.client})  ${c.name}`,
        ),
    });
    const add = mine.find((c) => c.name.startsWith('add'));
    const active = mine.find(
      (c) =>
        c.name === 'moveToActive' ||
        c.name === 'onWake:moveToActive' ||
        (c.name === 'moveToFinished' && add && c.at > add.at),
    );
    const deliver = mine.find((c) => c.name === 'script({task})');
    total.push(exchange.doneAt - exchange.sentAt);
    if (!add || !active || !deliver || exchange.status !== 200) continue;
    complete++;
    stages.apiIn.push(add.at - exchange.sentAt);
    stages.pickUp.push(active.at - add.at);
    stages.worker.push(deliver.at - active.at);
    stages.reply.push(exchange.doneAt - deliver.at);
  }

  const fmt = (n: number) => n.toFixed(3);
  const print = (line = '') => process.stdout.write(`${line}\n`);
  print(`Stages of ${count} sequential requests (${complete} with every marker), ms: median / p90`);
  const rows: [string, number[]][] = [
    ['api in (parse, auth, validate, admit) → job add', stages.apiIn],
    ['pick-up (job add → moveToActive)', stages.pickUp],
    ['worker (upstream call, settle) → delivery', stages.worker],
    ['reply (publish → last byte at client)', stages.reply],
    ['total, send → last byte', total],
  ];
  for (const [label, values] of rows)
    print(`  ${label.padEnd(52)} ${fmt(median(values)).padStart(7)} / ${fmt(percentile(values, 0.9)).padStart(7)}`);
  print();
  print('Redis commands per request, by connection (BullMQ scripts by name):');
  for (const [key, n] of [...perRequest].sort((a, b) => b[1] - a[1]))
    print(`  ${(n / count).toFixed(2).padStart(6)}  ${key}`);
  timelines.sort((a, b) => a.total - b.total);
  const sample = timelines[Math.floor(timelines.length / 2)];
  print(`A median request (${sample.total.toFixed(3)} ms), its round trips by offset from send (ms):`);
  for (const line of sample.lines) print(`  ${line}`);
  const all = [...perRequest.values()].reduce((s, n) => s + n, 0);
  print(`  ${(all / count).toFixed(2).padStart(6)}  in all`);
}

runBench('stages', main);
