import { utcDay, utcDaysBefore } from '@gateway/common';
import {
  Application,
  BillingRecordsRepository,
  FEED_PAGE_SIZE,
  FeedDirectory,
  NewTaskRecord,
  TasksRepository,
} from '@gateway/db';
import { GatewayRedis } from '@gateway/redis';
import { getModelToken } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { MaintenancePass } from '../../apps/worker/src/tasks/maintenance-pass.service';
import { fakeVector, OpenAiFake } from '../fakes/openai-fake';
import { consoleClient } from '../helpers/console';
import { createApplication, getJson, postJson, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';

const SEEDED = 50_000;

function taskId(): string {
  return `task_${randomBytes(24)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, 22)}`;
}

/** A finished embeddings task as the worker records it. */
function embeddingTask(appId: string, createdAt: number, result = '{"object":"list","data":[]}'): NewTaskRecord {
  const id = taskId();
  return {
    _id: id,
    appId,
    requestId: `req_${id}`,
    endpoint: '/v1/embeddings',
    model: 'text-embedding-v4',
    resolvedModel: 'text-embedding-v4',
    provider: 'primary',
    status: 'succeeded',
    createdAt: new Date(createdAt),
    day: utcDay(createdAt),
    startedAt: new Date(createdAt + 1),
    finishedAt: new Date(createdAt + 5),
    providerMs: 3,
    attempts: 1,
    usage: { prompt_tokens: 2, total_tokens: 2 },
    costNanos: 250_000_000,
    result,
  };
}

async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await call();
  return { value, ms: performance.now() - started };
}

describe('task records at volume: reads by index, newest-first listings and result retention', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let tasks: TasksRepository;

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, MAINTENANCE_INTERVAL_MS: 3_600_000 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    tasks = api.app.get(TasksRepository);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  it(`answers GET /v1/tasks/{id} in under 50 ms with ${SEEDED.toLocaleString('en-US')} tasks stored, for the owner, another application and a missing id`, async () => {
    const owner = await createApplication(api, 'owner');
    const other = await createApplication(api, 'other');
    // Seeded through the repository the worker records with, 500 at a time (group commit batches them).
    const now = Date.now();
    for (let start = 0; start < SEEDED; start += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          tasks.record(embeddingTask(i % 2 ? owner.appId : other.appId, now - ((start + i) % 20) * 86_400_000)),
        ),
      );
    }
    const response = await postJson(
      `${api.url}/v1/embeddings`,
      { model: 'text-embedding-v4', input: 'needle', dimensions: 64 },
      owner.apiKey,
    );
    expect(response.status).toBe(200);
    const id = response.headers.get('x-task-id')!;
    // The record is written just after the answer; wait until GET reads it from the database, not the outcome key.
    let recorded = false;
    for (let i = 0; i < 100 && !recorded; i++)
      recorded = (await tasks.findById(id)) !== null || (await new Promise((r) => setTimeout(r, 20)), false);
    expect(recorded).toBe(true);

    const get = (key: string, task = id) => timed(() => getJson(`${api.url}/v1/tasks/${task}`, key));
    await get(owner.apiKey); // warm the key cache and the connection
    // Timed as the median of 7 rounds: PostgreSQL's autovacuum works through the fresh 50,000 rows meanwhile.
    const times: Record<'mine' | 'foreign' | 'missing', number[]> = { mine: [], foreign: [], missing: [] };
    for (let i = 0; i < 7; i++) {
      const mine = await get(owner.apiKey);
      expect(mine.value.status).toBe(200);
      expect(mine.value.body.result.data[0].embedding).toEqual(fakeVector('needle', 64));
      const foreign = await get(other.apiKey);
      expect(foreign.value.status).toBe(404);
      const missing = await get(owner.apiKey, taskId());
      expect(missing.value.status).toBe(404);
      [times.mine[i], times.foreign[i], times.missing[i]] = [mine.ms, foreign.ms, missing.ms];
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
    expect(median(times.mine)).toBeLessThan(50);
    expect(median(times.foreign)).toBeLessThan(50);
    expect(median(times.missing)).toBeLessThan(50);
  }, 300_000);

  it("lists an application's tasks newest first, page after page, each exactly once", async () => {
    /** A page of the listing, as far as this test reads it (the cursor loop needs its type spelled out). */
    type TaskPage = { status: number; body: { data: { id: string }[]; next: string | null } };
    const console = consoleClient(api.url);
    const user = await console.register(`lister-${randomBytes(4).toString('hex')}@example.com`);
    const created = await console.call('POST', '/applications', user, { name: 'lister' });
    expect(created.status).toBe(201);
    const appId = created.body.id;
    await api.app
      .get<Model<Application>>(getModelToken(Application.name))
      .updateOne({ _id: appId }, { $set: { createdAt: new Date(Date.now() - 11 * 86_400_000) } });
    const today = utcDay();
    // 250 today (many pages of the feed), 30 yesterday and 30 ten days ago.
    const seeded = [
      ...Array.from({ length: 250 }, () => embeddingTask(appId, Date.now())),
      ...Array.from({ length: 30 }, () => embeddingTask(appId, Date.parse(`${utcDaysBefore(today, 1)}T12:00:00Z`))),
      ...Array.from({ length: 30 }, () => embeddingTask(appId, Date.parse(`${utcDaysBefore(today, 10)}T12:00:00Z`))),
    ];
    for (const task of seeded) await tasks.record(task);

    const listed: TaskPage['body']['data'] = [];
    let cursor: string | null = null;
    do {
      const page: TaskPage = await console.call(
        'GET',
        `/applications/${appId}/tasks?limit=70&from=${utcDaysBefore(today, 29)}${cursor ? `&cursor=${cursor}` : ''}`,
        user,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(70);
      listed.push(...page.body.data);
      cursor = page.body.next;
    } while (cursor);

    const newestFirst = [seeded.slice(0, 250), seeded.slice(250, 280), seeded.slice(280)].flatMap((day) =>
      day.map((task) => task._id).reverse(),
    );
    expect(listed.map((task) => task.id)).toEqual(newestFirst);
    expect(new Set(listed.map((task) => task.id)).size).toBe(310);
    expect(listed[0]).toMatchObject({
      status: 'succeeded',
      model: 'text-embedding-v4',
      cost_nanos: '250000000',
      cost: '0.25',
    });
    // A day range narrows it; a cursor that no page handed out is refused.
    const yesterday = await console.call(
      'GET',
      `/applications/${appId}/tasks?from=${utcDaysBefore(today, 1)}&to=${utcDaysBefore(today, 1)}&limit=200`,
      user,
    );
    expect(yesterday.body.data).toHaveLength(30);
    expect(yesterday.body.next).toBeNull();
    const forged = await console.call('GET', `/applications/${appId}/tasks?cursor=nonsense`, user);
    expect(forged.status).toBe(400);
    expect(forged.body.error).toMatchObject({ code: 'InvalidParameter', param: 'cursor' });
    const other = await console.register(`other-${randomBytes(4).toString('hex')}@example.com`);
    expect((await console.call('GET', `/applications/${appId}/tasks`, other)).status).toBe(404);

    // Once the day's Redis counter has expired, a directory that lost a raise to a concurrent writer is read past
    // and healed: nothing recorded goes missing from the listing.
    const directory = api.app.get<Model<FeedDirectory>>(getModelToken(FeedDirectory.name));
    const entry = `tasks|${appId}|${today}`;
    const last = (await directory.findById(entry).lean())!.last;
    const redis = api.app.get(GatewayRedis);
    expect(last).toBe(Math.floor((250 - 1) / FEED_PAGE_SIZE));
    await redis.client.del(redis.keys.feedCounter('tasks', appId, today));
    await directory.updateOne({ _id: entry }, { $set: { last: last - 3 } });
    const healed = await console.call('GET', `/applications/${appId}/tasks?from=${today}&limit=200`, user);
    expect(healed.body.data.map((task: { id: string }) => task.id)).toEqual(newestFirst.slice(0, 200));
    expect((await directory.findById(entry).lean())!.last).toBe(last);

    // With every counter gone, the directory alone lists the same records, page after page.
    for (const day of [utcDaysBefore(today, 1), utcDaysBefore(today, 10)]) {
      await redis.client.del(redis.keys.feedCounter('tasks', appId, day));
    }
    const fromDirectory: TaskPage['body']['data'] = [];
    cursor = null;
    do {
      const page: TaskPage = await console.call(
        'GET',
        `/applications/${appId}/tasks?limit=70&from=${utcDaysBefore(today, 29)}${cursor ? `&cursor=${cursor}` : ''}`,
        user,
      );
      fromDirectory.push(...page.body.data);
      cursor = page.body.next;
    } while (cursor);
    expect(fromDirectory.map((task) => task.id)).toEqual(newestFirst);

    // Redis lost today's counter (a restart without its data): the next task is numbered past every page the
    // directory knows of, so a listing that trusts the new counter still reaches the earlier records.
    await redis.client.del(redis.keys.feedCounter('tasks', appId, today));
    const afterLoss = embeddingTask(appId, Date.now());
    await tasks.record(afterLoss);
    const todays = await console.call('GET', `/applications/${appId}/tasks?from=${today}&limit=200`, user);
    expect(todays.body.data[0].id).toBe(afterLoss._id);
    const rest = await console.call(
      'GET',
      `/applications/${appId}/tasks?from=${today}&limit=200&cursor=${todays.body.next}`,
      user,
    );
    expect([...todays.body.data, ...rest.body.data].map((task: { id: string }) => task.id)).toEqual([
      afterLoss._id,
      ...newestFirst.slice(0, 250),
    ]);
  });

  it('removes result bodies past TASK_RESULT_RETENTION and keeps the record, its usage, cost and billing', async () => {
    const { appId, apiKey } = await createApplication(api, 'retained');
    // An application a month old, as one with results past retention would be.
    await api.app
      .get<Model<Application>>(getModelToken(Application.name))
      .updateOne({ _id: appId }, { $set: { createdAt: new Date(Date.now() - 30 * 86_400_000) } });
    const old = embeddingTask(appId, Date.now() - 9 * 86_400_000, '{"object":"list","data":[{"embedding":[0.5]}]}');
    const fresh = embeddingTask(appId, Date.now() - 3_600_000, '{"object":"list","data":[{"embedding":[0.25]}]}');
    await tasks.record(old);
    await tasks.record(fresh);
    const billing = api.app.get(BillingRecordsRepository);
    await billing.billImages([
      {
        taskId: old._id,
        index: 0,
        appId,
        model: 'x-image-edit',
        unitPriceNanos: 200_000_000,
        currency: 'CNY',
        day: old.day,
        createdAt: old.createdAt,
      },
    ]);

    // Past retention the view already says so, before any sweep.
    const before = await getJson(`${api.url}/v1/tasks/${old._id}`, apiKey);
    expect(before.body).toMatchObject({ status: 'succeeded', result: null, result_expired: true });
    expect(await tasks.findResult(old._id)).not.toBeNull();

    const deleted = await worker.app.get(MaintenancePass).run();
    expect(deleted.results).toBeGreaterThanOrEqual(1);
    expect(await tasks.findResult(old._id)).toBeNull();

    const after = await getJson(`${api.url}/v1/tasks/${old._id}`, apiKey);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({
      id: old._id,
      status: 'succeeded',
      result: null,
      result_expired: true,
      cost: 0.25,
      usage: { prompt_tokens: 2 },
    });
    expect(await billing.listForTask(old._id, appId)).toEqual([
      expect.objectContaining({ index: 0, unitPriceNanos: 200_000_000 }),
    ]);
    // A task within retention keeps its body.
    const kept = await getJson(`${api.url}/v1/tasks/${fresh._id}`, apiKey);
    expect(kept.body).toMatchObject({ result: { data: [{ embedding: [0.25] }] }, result_expired: false });
  });
});
