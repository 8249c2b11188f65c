import { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import {
  metricValue,
  ROOT,
  RunningApi,
  RunningWorker,
  startApi,
  spawnWorker,
  startWorker,
  testEnv,
  waitFor,
} from '../helpers/gateway';
import { EnvSource } from '@gateway/common';
import { OwnDatabase } from '../helpers/own-database';

// scripts/services.js is the same helper `npm test` uses to start the shared servers.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/services.js');

jest.setTimeout(120_000);

const RULES_DIR = join(ROOT, 'prometheus', 'rules');
/** A histogram's series are its name with these suffixes; its TYPE line names it without. */
const HISTOGRAM_SERIES = /_(bucket|count|sum)$/;

/**
 * The gauges the alerts of prometheus/rules/gateway.yml read beside the counters: workers per queue, Redis memory and
 * policy, readiness. On a Redis and a database of this suite's own, since it changes the Redis's settings and takes
 * both down.
 */
describe('operations gauges on /metrics', () => {
  let dir: string;
  let redis: ChildProcess;
  let database: OwnDatabase;
  let env: EnvSource;
  let admin: Redis;
  let api: RunningApi;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-gauges-'));
    const redisPort = await services.freePort();
    redis = await services.startRedis({ port: redisPort, dir: join(dir, 'redis') });
    database = await OwnDatabase.start('gauges');
    env = testEnv({
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      MONGODB_URI: database.uri('gauges'),
    });
    admin = new Redis(`redis://127.0.0.1:${redisPort}`, { maxRetriesPerRequest: 0, lazyConnect: true });
    api = await startApi(env);
  });

  afterAll(async () => {
    admin?.disconnect();
    await api?.close().catch(() => undefined);
    if (worker) await services.stop(worker, 'SIGKILL');
    await Promise.all([services.stop(redis, 'SIGKILL'), database?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async () => (await fetch(`${api.metricsUrl}/metrics`)).text();
  const workers = (metrics: string, queue: string) => metricValue(metrics, 'gateway_queue_workers', { queue });

  it('exposes every metric the rules of prometheus/rules read (a misspelt name there fails here)', async () => {
    const metrics = await scrape();
    const declared = new Set([...metrics.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((line) => line[1]));
    const read = new Set(
      readdirSync(RULES_DIR)
        .filter((file) => file.endsWith('.yml'))
        .flatMap((file) => [...readFileSync(join(RULES_DIR, file), 'utf8').matchAll(/\b(?:gateway|nodejs)_\w+/g)])
        .map((name) => name[0]),
    );
    expect(read.size).toBeGreaterThan(10);
    const missing = [...read].filter(
      (name) => !declared.has(name) && !declared.has(name.replace(HISTOGRAM_SERIES, '')),
    );
    expect(missing).toEqual([]);
  });

  it('counts the workers connected to each queue, as the api sees them', async () => {
    const before = await scrape();
    for (const queue of ['embeddings', 'chat', 'image-edit', 'webhooks']) expect(workers(before, queue)).toBe(0);

    let worker: RunningWorker | undefined = await startWorker({ ...env, WORKER_QUEUES: 'embeddings,chat' });
    try {
      // Each BullMQ worker's blocking connection carries its queue's name once it has connected.
      const serving = await waitFor(
        scrape,
        (metrics) => workers(metrics, 'chat')! >= 1 && workers(metrics, 'embeddings')! >= 1,
        'the chat and embeddings workers counted',
      );
      expect(workers(serving, 'image-edit')).toBe(0);
      expect(workers(serving, 'webhooks')).toBe(0);
      await worker.close();
      worker = undefined;
      await waitFor(scrape, (metrics) => workers(metrics, 'chat') === 0, 'the closed worker no longer counted');
    } finally {
      await worker?.close();
    }
  });

  it("reports Redis's used memory, maxmemory and maxmemory-policy as they change", async () => {
    await admin.connect();
    const metrics = await scrape();
    expect(metricValue(metrics, 'gateway_redis_memory_used_bytes', {})).toBeGreaterThan(0);
    expect(metricValue(metrics, 'gateway_redis_memory_max_bytes', {})).toBe(0);
    expect(metricValue(metrics, 'gateway_redis_maxmemory_policy', { policy: 'noeviction' })).toBe(1);

    await admin.config('SET', 'maxmemory', '512mb');
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const changed = await scrape();
    expect(metricValue(changed, 'gateway_redis_memory_max_bytes', {})).toBe(512 * 1024 * 1024);
    expect(metricValue(changed, 'gateway_redis_maxmemory_policy', { policy: 'allkeys-lru' })).toBe(1);
    // Only the policy in force has a series.
    expect(metricValue(changed, 'gateway_redis_maxmemory_policy', { policy: 'noeviction' })).toBeUndefined();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
  });

  it('reports readiness, 1 then 0 once the database is down, and still answers the scrape with Redis down', async () => {
    expect(metricValue(await scrape(), 'gateway_ready', {})).toBe(1);
    // A worker too: its queue connection waits for Redis forever, and its scrape must not.
    const workerPort = await services.freePort();
    worker = spawnWorker({ ...env, WORKER_PORT: workerPort });
    const workerMetrics = `http://127.0.0.1:${workerPort}/metrics`;
    await waitFor(
      () =>
        fetch(workerMetrics).then(
          (r) => r.text(),
          () => '',
        ),
      (metrics) => metricValue(metrics, 'gateway_ready', {}) === 1,
      'worker ready',
    );

    await database.kill();
    const down = await waitFor(scrape, (metrics) => metricValue(metrics, 'gateway_ready', {}) === 0, 'not ready');
    expect(metricValue(down, 'gateway_ready', {})).toBe(0);
    expect((await fetch(`${api.metricsUrl}/health/ready`)).status).toBe(503);

    await services.stop(redis, 'SIGKILL');
    for (const url of [`${api.metricsUrl}/metrics`, workerMetrics]) {
      // Well inside Prometheus's default scrape timeout of 10 s.
      const response = await fetch(url, { signal: AbortSignal.timeout(8_000) });
      expect(response.status).toBe(200);
      expect(metricValue(await response.text(), 'gateway_ready', {})).toBe(0);
    }
  });
});
