import { Job, Queue, QueueEvents } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { PromptWorker } from './prompt-worker';

/** PromptWorker against the suite's Redis: BullMQ's guarantees kept, with its own fetching. */
describe('PromptWorker', () => {
  const url = new URL(process.env.TEST_REDIS_URL ?? '');
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
