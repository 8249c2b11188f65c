import { TasksRepository, UsageCounters, UsageDailyRepository, UsageDay } from '@gateway/db';
import { DeliveredTasks, OutcomeDelivery, usageFields } from '@gateway/ledger';
import { GatewayRedis } from '@gateway/redis';
import { Queue } from 'bullmq';
import { ChildProcess, spawn } from 'node:child_process';
import { OpenAiFake } from '../fakes/openai-fake';
import { ENTRY_POINTS } from '../../scripts/processes';
import {
  createApplication,
  postJson,
  processEnv,
  RunningApi,
  spawnWorker,
  startApi,
  startWorker,
  testEnv,
  waitFor,
  waitUntil,
} from '../helpers/gateway';
import { OwnDatabase } from '../helpers/own-database';

type Env = ReturnType<typeof testEnv>;

/** What the day's task records of one application add up to, by resolved model, from the database itself. */
async function recordedUsage(api: RunningApi, appId: string, day: string): Promise<Map<string, UsageCounters>> {
  const tasks = api.app.get(TasksRepository);
  const sums = new Map<string, UsageCounters>();
  for (let cursor: string | undefined; ;) {
    const slice = await tasks.listForApp(appId, { from: day, to: day, limit: 500, cursor });
    for (const task of slice.data) {
      const row = sums.get(task.resolvedModel) ?? {
        calls: 0,
        errors: 0,
        promptTokens: 0,
        completionTokens: 0,
        images: 0,
        costNanos: 0,
      };
      row.calls += 1;
      row.errors += task.status === 'failed' ? 1 : 0;
      row.promptTokens += task.usage?.prompt_tokens ?? 0;
      row.completionTokens += task.usage?.completion_tokens ?? 0;
      row.images += task.usage?.images ?? 0;
      row.costNanos += task.costNanos;
      sums.set(task.resolvedModel, row);
    }
    if (!slice.next) return sums;
    cursor = slice.next;
  }
}

function asCounters({ calls, errors, promptTokens, completionTokens, images, costNanos }: UsageDay): UsageCounters {
  return { calls, errors, promptTokens, completionTokens, images, costNanos };
}

async function rollups(api: RunningApi, appId: string, day: string): Promise<Map<string, UsageCounters>> {
  const rows = await api.app.get(UsageDailyRepository).listForApp(appId, day, day);
  return new Map(rows.map((row) => [row.model, asCounters(row)]));
}

/** `count` embeddings of distinct inputs, `concurrency` at a time; all must answer 200. */
async function embed(api: RunningApi, apiKey: string, count: number, concurrency = 10): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const input = `usage ${i} `.repeat(1 + (i % 4));
        const response = await postJson(`${api.url}/v1/embeddings`, { model: 'text-embedding-v4', input }, apiKey);
        expect(response.status).toBe(200);
        ids.push(response.headers.get('x-task-id')!);
      }
    }),
  );
  return ids;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('usage counted exactly once, whatever fails', () => {
  const upstream = new OpenAiFake();
  const day = new Date().toISOString().slice(0, 10);

  beforeAll(() => upstream.start());
  afterAll(() => upstream.stop());
  beforeEach(() => upstream.setDelay(0));

  it('counts a task once however often its job delivers, and files its record once', async () => {
    const env = testEnv();
    const api = await startApi(env);
    const queue = new Queue('embeddings', {
      connection: { url: String(env.REDIS_URL) },
      prefix: String(env.REDIS_PREFIX),
    });
    try {
      const delivery = api.app.get(OutcomeDelivery);
      const job = await queue.add('embed', { taskId: 'task_twice' }, { jobId: 'task_twice' });
      const finished = {
        taskId: 'task_twice',
        jobKey: `${queue.qualifiedName}:${job.id}`,
        outcome: { ok: true as const, body: '{"data":[]}', provider: 'primary', providerMs: 1 },
        record: JSON.stringify({ record: { _id: 'task_twice', day }, notify: false }),
        day,
        usage: usageFields({ appId: 'app_x', model: 'm', day }, { calls: 1, costNanos: 1_500 }),
      };
      expect(await delivery.deliver(finished)).toBe(true);
      expect(await delivery.wasDelivered(finished.jobKey)).toBe(true);
      // A rerun after a stall delivers again: answered, not counted.
      expect(await delivery.deliver({ ...finished, usage: { ...finished.usage } })).toBe(false);
      const { client: redis, keys } = api.app.get(GatewayRedis);
      expect(await redis.hgetall(keys.usagePending())).toEqual({
        [`app_x|m|${day}|calls`]: '1',
        [`app_x|m|${day}|costNanos`]: '1500',
      });
      expect(await api.app.get(DeliveredTasks).count()).toBe(1);
      expect(await delivery.read('task_twice')).toMatchObject({ ok: true, body: '{"data":[]}' });
    } finally {
      await queue.close();
      await api.close();
    }
  });

  it('writes the records a version before the record stream left filed in its hash', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    const [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    try {
      const { apiKey } = await createApplication(api, 'upgraded');
      const [taskId] = await embed(api, apiKey, 1);
      const tasks = api.app.get(TasksRepository);
      const written = await waitFor(
        () => tasks.findById(taskId),
        (found) => found !== null,
        'a record to copy',
      );
      // What the previous version filed for a task it delivered: the record's fields in a hash, its due time in a set.
      const { _id, page: _page, seq: _seq, ...fields } = written as unknown as Record<string, unknown>;
      const legacyId = `${taskId}x`;
      const { client: redis, keys } = api.app.get(GatewayRedis);
      await redis
        .multi()
        .hset(
          keys.legacyPendingRecords(),
          legacyId,
          JSON.stringify({ record: { ...fields, _id: legacyId }, notify: false }),
        )
        .zadd(keys.legacyRecordsDue(), Date.now(), legacyId)
        .exec();

      await waitFor(
        () => tasks.findById(legacyId),
        (found) => found !== null,
        'the legacy record written',
        30_000,
      );
      expect(await tasks.findById(legacyId)).toMatchObject({ status: 'succeeded', appId: written!.appId });
      expect(await redis.exists(keys.legacyPendingRecords(), keys.legacyRecordsDue())).toBe(0);
      await waitUntil(async () => (await api.app.get(DeliveredTasks).count()) === 0, 'the stream settled');
    } finally {
      await Promise.all([api.close(), worker.close()]);
    }
  });

  it('keeps the usage of a worker killed between answering and folding it: the roll-up equals the records', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, USAGE_FLUSH_MS: 100 });
    const api = await startApi(env);
    // This worker never gets to fold: everything it counts is still unfolded when it is killed.
    const doomed = spawnWorker({ ...env, USAGE_FLUSH_MS: 3_600_000 });
    try {
      const { appId, apiKey } = await createApplication(api, 'killed-before-fold');
      const ids = await embed(api, apiKey, 60);
      doomed.kill('SIGKILL');
      await exited(doomed);
      expect(await rollups(api, appId, day)).toEqual(new Map());

      const survivor = await startWorker(env);
      try {
        await waitUntil(
          async () => (await rollups(api, appId, day)).get('text-embedding-v4')?.calls === ids.length,
          'the survivor to fold the killed worker’s usage',
        );
        // Records the killed worker took and had not written are another writer's once idle for 30 s.
        await waitUntil(async () => (await api.app.get(DeliveredTasks).count()) === 0, 'every record written', 60_000);
        expect(await rollups(api, appId, day)).toEqual(await recordedUsage(api, appId, day));
      } finally {
        await survivor.close();
      }
    } finally {
      doomed.kill('SIGKILL');
      await api.close();
    }
  }, 120_000);

  describe('with a database of its own that goes away', () => {
    let database: OwnDatabase;
    let env: Env;

    beforeAll(async () => {
      database = await OwnDatabase.start('usage-outage');
      env = testEnv({
        UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl,
        USAGE_FLUSH_MS: 100,
        MONGODB_URI: database.uri('usage_outage'),
        AUTH_CACHE_TTL_MS: 60_000,
      });
    });

    afterAll(() => database?.close());

    it('answers callers while the database is away and writes every record and roll-up once it is back', async () => {
      const [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
      try {
        const { appId, apiKey } = await createApplication(api, 'outage');
        await embed(api, apiKey, 5); // the key is now cached by the api
        await database.kill();
        const during = await embed(api, apiKey, 40);
        expect(await api.app.get(DeliveredTasks).count()).toBeGreaterThanOrEqual(40);

        await database.restart();
        await waitUntil(async () => (await api.app.get(DeliveredTasks).count()) === 0, 'the records written', 90_000);
        const tasks = api.app.get(TasksRepository);
        for (const id of during) expect(await tasks.findById(id)).toMatchObject({ status: 'succeeded' });
        await waitUntil(
          async () => (await rollups(api, appId, day)).get('text-embedding-v4')?.calls === 45,
          'the roll-up of all 45 calls',
        );
        expect(await rollups(api, appId, day)).toEqual(await recordedUsage(api, appId, day));
      } finally {
        await Promise.all([api.close(), worker.close()]);
      }
    }, 180_000);
  });

  it('reconciles a day: reports a corrupted roll-up and repairs it from the task records', async () => {
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, USAGE_FLUSH_MS: 100 });
    const [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    // Not spawnSync: the worker runs in this process and must go on folding (and releasing its lease) meanwhile.
    const gw = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [ENTRY_POINTS.cli, ...args], { env: processEnv(env) });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    try {
      const { appId, apiKey } = await createApplication(api, 'reconciled');
      const ids = await embed(api, apiKey, 12);
      await waitUntil(
        async () => (await rollups(api, appId, day)).get('text-embedding-v4')?.calls === ids.length,
        'the roll-up',
      );
      // The records lag the answers by their write (milliseconds).
      await waitUntil(async () => (await api.app.get(DeliveredTasks).count()) === 0, 'every record written');
      const truth = await recordedUsage(api, appId, day);
      expect(await rollups(api, appId, day)).toEqual(truth);
      expect(JSON.parse((await gw('usage:reconcile', '--day', day, '--json')).stdout)).toMatchObject({
        differences: [],
        repaired: false,
      });

      // Corrupt it: calls lost, tokens and cost inflated.
      await api.app.get(UsageDailyRepository).replace([
        {
          key: { appId, model: 'text-embedding-v4', day },
          counters: { ...truth.get('text-embedding-v4')!, calls: 3, promptTokens: 999, costNanos: 1 },
        },
      ]);
      const dryRun = await gw('usage:reconcile', '--day', day, '--dry-run');
      expect({ status: dryRun.status, stderr: dryRun.stderr }).toEqual({ status: 0, stderr: '' });
      expect(dryRun.stdout).toContain(`${appId} text-embedding-v4: calls 3 → ${ids.length}`);
      expect(dryRun.stdout).toContain('Not repaired (--dry-run).');
      expect((await rollups(api, appId, day)).get('text-embedding-v4')?.calls).toBe(3);

      const repaired = await gw('usage:reconcile', '--day', day);
      expect({ status: repaired.status, stderr: repaired.stderr }).toEqual({ status: 0, stderr: '' });
      expect(repaired.stdout).toContain('Repaired: the roll-ups now equal the task records.');
      expect(await rollups(api, appId, day)).toEqual(truth);
      expect((await gw('usage:reconcile', '--day', '2026-13-01')).status).toBe(2);
    } finally {
      await Promise.all([api.close(), worker.close()]);
    }
  }, 120_000);
});
