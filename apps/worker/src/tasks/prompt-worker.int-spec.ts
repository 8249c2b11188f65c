import { Job, Queue, QueueEvents } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { bullmqScriptSha } from '../../../../test/helpers/bullmq-scripts';
import { testConfig } from '../../../../test/helpers/test-env';
import { PromptWorker } from './prompt-worker';

/** PromptWorker against the suite's Redis: BullMQ's guarantees kept, with its own fetching. */
describe('PromptWorker', () => {
  const url = new URL(testConfig().REDIS_URL);
  const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
  const prefix = `prompt-worker-${randomUUID()}`;
  let queue: Queue;
  let events: QueueEvents;
  let worker: PromptWorker | undefined;

  beforeAll(async () => {
    queue = new Queue('jobs', { connection, prefix });
    events = new QueueEvents('jobs', { connection, prefix });
    await events.waitUntilReady();
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await queue.obliterate({ force: true });
  });

  afterAll(async () => {
    await events.close();
    await queue.close();
  });

  function startWorker(process: (job: Job) => Promise<unknown>, concurrency: number): PromptWorker {
    worker = new PromptWorker('jobs', process, { connection, prefix, concurrency, autorun: false });
    void worker.run();
    return worker;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs a backlog up to its concurrency at once', async () => {
    let running = 0;
    let most = 0;
    startWorker(async () => {
      most = Math.max(most, ++running);
      await sleep(300);
      running--;
    }, 50);
    const jobs = await queue.addBulk(Array.from({ length: 100 }, (_, i) => ({ name: 'slow', data: { i } })));
    await Promise.all(jobs.map((job) => job.waitUntilFinished(events, 10_000)));
    expect(most).toBe(50);
  });

  it('starts a job that comes to an idle queue, and the next one while the first still runs', async () => {
    const steps: string[] = [];
    startWorker(async (job) => {
      steps.push(`${job.name} started`);
      await sleep(1_000);
      steps.push(`${job.name} finished`);
    }, 4);
    await sleep(200);
    const first = await queue.add('a', {});
    await sleep(100);
    const second = await queue.add('b', {});
    await Promise.all([first, second].map((job) => job.waitUntilFinished(events, 5_000)));
    expect(steps).toEqual(['a started', 'b started', 'a finished', 'b finished']);
  });

  it('retries a failed job with its backoff and keeps the return value of a completed one', async () => {
    let attempts = 0;
    startWorker(async (job) => {
      if (job.name === 'flaky' && ++attempts < 3) throw new Error('not yet');
      return { name: job.name };
    }, 2);
    const flaky = await queue.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 50 } });
    await expect(flaky.waitUntilFinished(events, 5_000)).resolves.toEqual({ name: 'flaky' });
    expect(attempts).toBe(3);
  });

  it('takes a job that comes to an idle queue on the connection that waited for it, stamped with the time it ran', async () => {
    const moveToActive = bullmqScriptSha('moveToActive');
    const monitor = await new Redis(connection).monitor();
    const commands: { client: string; verb: string; script?: string }[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (!args.slice(1).some((arg) => arg.startsWith(`${prefix}:jobs:`))) return;
      commands.push({ client: source, verb: args[0].toLowerCase(), script: args[1] });
    });
    try {
      startWorker(async () => 'done', 4);
      // Long enough for the worker to find the queue empty and wait for a marker.
      await sleep(1_500);
      const job = await queue.add('late', {});
      await job.waitUntilFinished(events, 5_000);
      const done = (await queue.getJob(job.id!))!;
      // Redis's clock when the job came, not the time the fetch was sent (1.5 s before).
      expect(done.processedOn).toBeGreaterThanOrEqual(job.timestamp - 50);
      const waits = commands.filter((c) => c.verb === 'bzpopmin').map((c) => c.client);
      const fetches = commands.filter((c) => c.verb === 'evalsha' || c.verb === 'eval');
      // The fetch was queued behind the wait on the blocking connection (which runs nothing else), and Redis ran it
      // when the job's marker ended the wait; BullMQ's own moveToActive never ran.
      expect(fetches.filter((c) => waits.includes(c.client)).length).toBeGreaterThanOrEqual(1);
      expect(fetches.filter((c) => c.script === moveToActive)).toEqual([]);
    } finally {
      monitor.disconnect();
    }
  });

  it('runs a delayed job added to an idle queue when it is due', async () => {
    startWorker(async () => 'done', 2);
    await sleep(300);
    const job = await queue.add('later', {}, { delay: 700 });
    await job.waitUntilFinished(events, 5_000);
    const done = (await queue.getJob(job.id!))!;
    expect(done.processedOn! - job.timestamp).toBeGreaterThanOrEqual(700);
    expect(done.processedOn! - job.timestamp).toBeLessThan(2_000);
  });

  it('takes nothing once closed while waiting on an idle queue', async () => {
    startWorker(async () => 'done', 2);
    await sleep(300);
    await worker!.close();
    worker = undefined;
    await queue.add('after', {});
    await sleep(300);
    expect(await queue.getJobCounts('waiting', 'active')).toMatchObject({ waiting: 1, active: 0 });
  });

  it('closes once its running jobs are done, and leaves the rest waiting', async () => {
    let finished = 0;
    startWorker(async () => {
      await sleep(400);
      finished++;
    }, 2);
    await queue.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: 'job', data: { i } })));
    await sleep(100);
    await worker!.close();
    worker = undefined;
    expect(finished).toBe(2);
    expect(await queue.getWaitingCount()).toBe(3);
  });
});
