/**
 * bench:hostile: what hostile bodies cost the api while they are refused. Against the throwaway stack of
 * scripts/bench.js: `--rounds` (5) of each attack, one after the other, while a worker thread GETs /health/live every
 * 20 ms (bench/health-probe.js) and the api's RSS is read every 100 ms. Attacks: a 4 MB JSON body nested 2 million
 * deep to the console's sign-in (no credentials; its limit is 16 KB), a 45 MB one to /v1/images/edits (body limit
 * 48 MB) without a key and with the bench application's key, and a burst of 10,000 forged keys, 100 at a time.
 * It prints each attack's answers, the probes' p50/p99/max and the api's RSS peak over its baseline, beside the same
 * probes for 2 s with nothing sent; it never fails. The client may see EPIPE: the api answers 400 at the 65th level and
 * may close the socket while the rest of the body is still being written.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { env, print, printMachine, rssMb, runBench, servicePids, stats, table } from './shared';

const COMMAND = 'npm run bench:hostile';
const PROBE_EVERY_MS = 20;

interface Attack {
  name: string;
  path: string;
  body: Buffer;
  headers?: Record<string, string>;
  /** Sent this many times, `BURST_CONCURRENCY` at once, instead of `--rounds` one after the other. */
  burst?: number;
}

const BURST_CONCURRENCY = 100;

/** A key in the issued form whose keyed checksum cannot verify: refused without a look-up. */
function forgedKey(): string {
  return `sk-${randomBytes(36).toString('base64url').replace(/[-_]/g, 'x').slice(0, 48)}`;
}

function nested(bytes: number): Buffer {
  const depth = Math.floor(bytes / 2);
  return Buffer.from('['.repeat(depth) + ']'.repeat(depth));
}

/** Sends one body; answers the status and the envelope's code (or the network error). */
function send(apiUrl: string, attack: Attack): Promise<string> {
  return new Promise((resolve) => {
    const request = http.request(
      `${apiUrl}${attack.path}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': attack.body.length, ...attack.headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let code: string;
          try {
            code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '';
          } catch {
            code = 'not JSON';
          }
          resolve(`${response.statusCode} ${code}`);
        });
      },
    );
    request.on('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    request.end(attack.body);
  });
}

/** `count` sends, BURST_CONCURRENCY at once. */
async function burst(apiUrl: string, attack: Attack, count: number): Promise<string[]> {
  const answers: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next++ < count) answers.push(await send(apiUrl, attack));
  };
  await Promise.all(Array.from({ length: BURST_CONCURRENCY }, lane));
  return answers;
}

async function main(): Promise<void> {
  const apiUrl = env('BENCH_API_URL', COMMAND);
  const apiPid = servicePids().get('api');
  if (!apiPid) throw new Error(`BENCH_PIDS names no api: run this through \`${COMMAND}\``);
  const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
  printMachine();
  const attacks: Attack[] = [
    // The same probes with nothing sent: what the machine gives /health/live by itself.
    { name: 'none (baseline)', path: '', body: Buffer.alloc(0) },
    { name: '4 MB nested 2M deep → sign-in', path: '/console/api/auth/login', body: nested(4 * 1024 * 1024 - 2) },
    { name: '45 MB nested → image edits, no key', path: '/v1/images/edits', body: nested(45 * 1024 * 1024) },
    {
      name: '45 MB nested → image edits, real key',
      path: '/v1/images/edits',
      body: nested(45 * 1024 * 1024),
      headers: { authorization: `Bearer ${env('BENCH_API_KEY', COMMAND)}` },
    },
    {
      name: '10,000 forged keys → embeddings',
      path: '/v1/embeddings',
      body: Buffer.from('{"model":"text-embedding-v4","input":"hello"}'),
      get headers() {
        return { authorization: `Bearer ${forgedKey()}` };
      },
      burst: 10_000,
    },
  ];
  const rows = [
    ['attack', 'answers', 'probe p50 ms', 'p99 ms', 'max ms', 'failed', 'RSS base MB', 'peak MB', 'rise MB'],
  ];
  for (const attack of attacks) {
    const baseline = rssMb(apiPid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(apiPid))), 100);
    const probe = new Worker(path.join(__dirname, 'health-probe.js'), {
      workerData: { url: `${apiUrl}/health/live`, everyMs: PROBE_EVERY_MS },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answers: string[] = [];
    if (attack.body.length === 0) await new Promise((resolve) => setTimeout(resolve, 2000));
    else if (attack.burst) answers.push(...(await burst(apiUrl, attack, attack.burst)));
    else for (let i = 0; i < rounds; i++) answers.push(await send(apiUrl, attack));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const probes = await new Promise<{ ms: number; ok: boolean }[]>((resolve) => {
      probe.once('message', resolve);
      probe.postMessage('stop');
    });
    clearInterval(sampler);
    await probe.terminate();
    const latency = stats(probes.map((p) => p.ms));
    const unique = [...new Set(answers)].map((answer) => `${answers.filter((a) => a === answer).length}× ${answer}`);
    rows.push([
      attack.name,
      unique.join(', '),
      latency.p50.toFixed(1),
      latency.p99.toFixed(1),
      latency.max.toFixed(1),
      String(probes.filter((p) => !p.ok).length),
      baseline.toFixed(0),
      peak.toFixed(0),
      (peak - baseline).toFixed(0),
    ]);
  }
  print();
  print(
    `Hostile bodies, ${rounds} of each in a row (a burst: ${BURST_CONCURRENCY} at once); /health/live every ${PROBE_EVERY_MS} ms meanwhile`,
  );
  print(table(rows));
  print('Targets: /health/live p99 < 50 ms, api RSS rise < 50 MB.');
}

runBench('hostile', main);
