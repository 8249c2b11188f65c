/**
 * The floor of a queue-backed call: what api → BullMQ → worker → upstream → reply channel → api costs on its own.
 * `--role api`: an HTTP server that adds each request's body as a job and answers with what the worker publishes
 * (prints `listening <port>`); `--role worker`: the gateway's PromptWorker, posting each job's body to the upstream
 * and publishing the answer; `--role both`: the two in one process. `--queue` names the queue (and its reply
 * channel), so that a `both` process and a separate pair do not take each other's jobs. No authentication,
 * validation, limits, records or usage: every step of the gateway's own is left out, its hops are kept. Started by
 * bench/floor.ts.
 */
import 'reflect-metadata';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { request } from 'undici';
import { PromptWorker } from '../../apps/worker/src/tasks/prompt-worker';

const { values } = parseArgs({
  options: {
    role: { type: 'string' },
    queue: { type: 'string', default: 'bench-floor' },
    redis: { type: 'string' },
    upstream: { type: 'string' },
  },
});
const QUEUE = values.queue ?? '';
const REPLIES = `${QUEUE}:replies`;
const connection = () => new Redis(values.redis ?? '', { maxRetriesPerRequest: null });

if (!['api', 'worker', 'both'].includes(values.role ?? '')) throw new Error('--role api|worker|both');
if (values.role !== 'worker') serveApi();
if (values.role !== 'api') runWorker(values.upstream ?? '');

function serveApi(): void {
  const queue = new Queue(QUEUE, { connection: connection() });
  const waiting = new Map<string, (answer: string) => void>();
  const replies = connection();
  void replies.subscribe(REPLIES);
  replies.on('message', (_channel: string, message: string) => {
    const split = message.indexOf('\n');
    const id = message.slice(0, split);
    waiting.get(id)?.(message.slice(split + 1));
    waiting.delete(id);
  });
  let jobs = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const id = `call-${++jobs}`;
      waiting.set(id, (answer) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
      });
      void queue.add('call', { id, body: JSON.parse(body) as unknown }, { jobId: id, removeOnComplete: true });
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
}

function runWorker(upstream: string): void {
  const publisher = connection();
  const worker = new PromptWorker<{ id: string; body: unknown }>(
    QUEUE,
    async (job) => {
      const response = await request(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer none' },
        body: JSON.stringify(job.data.body),
      });
      await publisher.publish(REPLIES, `${job.data.id}\n${await response.body.text()}`);
    },
    { connection: connection(), concurrency: 64, autorun: false },
  );
  void worker.run();
}
