/**
 * Growth benchmark: does every read stay flat as the embedded database fills up?
 *
 * Starts Redis and the embedded database (FerretDB over PostgreSQL) in a temp dir and fills it through the
 * repositories the gateway itself uses, in realistic proportions, to each size in --sizes (10k, 100k, 1M tasks):
 * 10 applications (one with 40% of the traffic), tasks spread over the last 30 days; 50% embeddings (results of 1024
 * or 256 dimensions), 45% chat, 5% image edits of 2 images (2 billing records and 2 stored files each); 20% of
 * tasks fire a webhook (1.2 attempts each); daily usage roll-ups. At each size it prints p50/p99 of every read on a
 * request path or a console page, the insert rate, disk per 1,000 tasks and the time of a full maintenance pass
 * (sweep progress reset, so the pass walks every day past retention). Asserts nothing.
 *
 * With --applications (e.g. 10000,100000) it fills applications instead, one owner per ten, and times the operators'
 * "All apps" listing (ConsoleOperatorsService.listApplications): its first page and a page further on.
 *
 * With --requests it fills only the task records (in batches, no results, billing or webhooks) and times only the
 * console's Requests reads (growth-requests.ts): a million tasks in a fraction of the full fill's time.
 *
 * Run: npm run bench:growth [-- --sizes 10000,100000,1000000 --samples 1000] [--requests]
 *      npm run bench:growth -- --applications 10000,100000 --samples 100
 */
import { benchConfig, benchContext, withEmbeddedStack } from './embedded-stack';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { Connection, mongo } from 'mongoose';
import { AppConfig, utcDay, utcDaysBefore } from '@gateway/common';
import {
  ApiKeysRepository,
  ApplicationsRepository,
  BillingRecordsRepository,
  TasksRepository,
  UsageCounters,
  UsageDailyRepository,
  UsersRepository,
  WebhookDeliveriesRepository,
} from '@gateway/db';
import { ImageStore, ImagingModule } from '@gateway/imaging';
import { REFUSALS_KEPT, RefusedCalls } from '@gateway/redis';
import { AuditTrail } from '@gateway/tenancy';
import { ConsoleOperatorsService } from '../apps/api/src/console/operators/console-operators.service';
import { ConsoleRefusalsService } from '../apps/api/src/console/requests/console-refusals.service';
import { MaintenancePass } from '../apps/worker/src/tasks/maintenance-pass.service';
import { appIndexOf, dayOf, fillRequestsOnly, requestFieldsOf, requestReads } from './growth-requests';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    samples: { type: 'string', default: '1000' },
    applications: { type: 'string' },
    requests: { type: 'boolean', default: false },
  },
});
const REQUESTS_ONLY = values.requests;
const SIZES = values.sizes.split(',').map(Number);
const SAMPLES = Number(values.samples);
const APPS = 10;
const DAYS = 30;
const IN_FLIGHT = 256;
const TARGET_P99_MS = 20;

interface Fixture {
  apps: { appId: string; keyHash: string }[];
  emails: string[];
  /** A sample of recorded tasks (id, app, whether it is an image edit), for reads. */
  tasks: { taskId: string; appId: string; image: boolean }[];
  fileIds: string[];
  recorded: number;
}

async function main(): Promise<void> {
  await withEmbeddedStack('growth', async (stack) => {
    const config = benchConfig(stack, 'growth');
    const app = await benchContext(config, 'growth-bench', {
      imports: [ImagingModule],
      providers: [MaintenancePass, ConsoleRefusalsService, ConsoleOperatorsService, AuditTrail],
    });
    if (values.applications) {
      await growApplications(app, values.applications.split(',').map(Number));
      await app.close();
      return;
    }
    const fixture = await setUp(app);
    await fillRefusals(app, fixture);
    print(
      `growth bench: ${APPS} applications, tasks over ${DAYS} days, ${SAMPLES} samples per read; target p99 ≤ ${TARGET_P99_MS} ms and ≤ 2× the first size`,
    );
    const firstP99 = new Map<string, number>();
    let firstInsertRate = 0;
    for (const size of SIZES) {
      const started = Date.now();
      const before = fixture.recorded;
      if (REQUESTS_ONLY) {
        await fillRequestsOnly(
          app,
          fixture.apps.map(({ appId }) => appId),
          fixture.recorded,
          size,
          DAYS,
        );
        fixture.recorded = size;
      } else await fill(app, fixture, size);
      const insertRate = ((fixture.recorded - before) / (Date.now() - started)) * 1000;
      firstInsertRate ||= insertRate;
      print(
        `\n== ${size.toLocaleString('en-US')} tasks (filled in ${((Date.now() - started) / 1000).toFixed(0)} s) ==`,
      );
      // A fill this fast leaves a backlog that real traffic, spread over days, would not: autovacuum's work and
      // gigabytes of dirty pages for the kernel to write out. Clear both before timing reads.
      psql(stack.postgresUrl, 'VACUUM (ANALYZE)');
      psql(stack.postgresUrl, 'CHECKPOINT');
      execFileSync('sync');
      print(
        `  inserts: ${insertRate.toFixed(0)} tasks/s recorded (${REQUESTS_ONLY ? 'task records and their feed rows only' : 'with their results, billing, webhooks and roll-ups'})${size === SIZES[0] ? '' : `, ${(insertRate / firstInsertRate).toFixed(2)}× the first size`}`,
      );
      const timed = { ...(REQUESTS_ONLY ? {} : reads(app, fixture)), ...(await requestsReads(app, fixture)) };
      for (const [name, { p50, p99 }] of await measure(timed)) {
        firstP99.set(name, firstP99.get(name) ?? p99);
        const ratio = p99 / firstP99.get(name)!;
        const ok = p99 <= TARGET_P99_MS && (size === SIZES[0] || ratio <= 2 || p99 <= 2) ? 'ok' : 'MISSED';
        print(
          `  ${name.padEnd(52)} p50 ${p50.toFixed(2).padStart(6)} ms  p99 ${p99.toFixed(2).padStart(6)} ms  ${size === SIZES[0] ? '' : `(${ratio.toFixed(2)}× first) `}${ok}`,
        );
      }
      if (REQUESTS_ONLY) continue;
      const connection = app.get<Connection>(getConnectionToken());
      await connection.db!.collection('sweep_state').deleteMany({});
      const passStarted = Date.now();
      const deleted = await app.get(MaintenancePass).run();
      print(
        `  maintenance pass: ${((Date.now() - passStarted) / 1000).toFixed(2)} s, deleted ${JSON.stringify(deleted)}`,
      );
      const bytes = diskBytes(stack.postgresUrl);
      print(
        `  database on disk: ${(bytes / 1e6).toFixed(0)} MB, ${(((bytes / size) * 1000) / 1e6).toFixed(2)} MB per 1,000 tasks (results older than TASK_RESULT_RETENTION swept)`,
      );
    }
    await app.close();
  });
}

/** Applications with keys, their owners, and the first tasks' bookkeeping. */
async function setUp(app: INestApplicationContext): Promise<Fixture> {
  const applications = app.get(ApplicationsRepository);
  const keys = app.get(ApiKeysRepository);
  const users = app.get(UsersRepository);
  const fixture: Fixture = { apps: [], emails: [], tasks: [], fileIds: [], recorded: 0 };
  for (let i = 0; i < APPS; i++) {
    const email = `owner${i}@example.com`;
    const user = await users.create({ _id: `usr_growth${i}`, email, passwordHash: 'x' });
    const appId = `app_growth${String(i).padStart(2, '0')}`;
    await applications.create({
      _id: appId,
      ownerId: user!._id,
      name: `app ${i}`,
      description: '',
      type: 'backend',
      usageScenario: '',
      expectedVolume: 0,
      scope: { capabilities: [], models: [] },
      dailyCallLimit: 0,
      concurrencyLimit: 0,
      requestsPerMinute: 0,
      tokenQuota: 0,
      ipWhitelist: [],
      secretKeyEnc: 'x',
    } as never);
    const keyHash = crypto.createHash('sha256').update(`key ${i}`).digest('hex');
    await keys.create({ _id: `key_growth${i}`, appId, hash: keyHash, prefix: 'sk-growth' });
    fixture.apps.push({ appId, keyHash });
    // Applications a month old, as a deployment with 30 days of tasks has.
    await app
      .get<Connection>(getConnectionToken())
      .db!.collection('applications')
      .updateOne({ _id: appId as never }, { $set: { createdAt: new Date(Date.now() - (DAYS + 1) * 86_400_000) } });
    fixture.emails.push(email);
  }
  return fixture;
}

/** Records tasks until `size` exist, IN_FLIGHT at a time, through the repositories the worker uses. */
async function fill(app: INestApplicationContext, fixture: Fixture, size: number): Promise<void> {
  const tasks = app.get(TasksRepository);
  const billing = app.get(BillingRecordsRepository);
  const deliveries = app.get(WebhookDeliveriesRepository);
  const usage = app.get(UsageDailyRepository);
  const store = app.get(ImageStore);
  const config = app.get(AppConfig);
  const today = utcDay();
  const rollups = new Map<string, { key: { appId: string; model: string; day: string }; counters: UsageCounters }>();

  const recordOne = async (n: number) => {
    const appIndex = appIndexOf(n, APPS);
    const appId = fixture.apps[appIndex].appId;
    // Days scattered independently of the application (a multiplicative hash of n): with `n % DAYS` the day would
    // fix n % 10 and so the application, leaving each one traffic on a few of the 30 days only.
    const day = dayOf(n, DAYS, today);
    const createdAt = Date.parse(`${day}T00:00:00Z`) + (n % 86_400) * 1000;
    const taskId = `task_${crypto.randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22)}`;
    const kind = n % 20 === 0 ? 'image' : n % 20 < 10 ? 'embeddings' : 'chat';
    const { model, result, usageOf, costNanos } = shapeOf(kind, n, taskId);
    await tasks.record({
      _id: taskId,
      appId,
      requestId: `req_${n}`,
      endpoint: `/v1/${kind === 'image' ? 'images/edits' : kind === 'chat' ? 'chat/completions' : 'embeddings'}`,
      model,
      resolvedModel: model,
      provider: 'primary',
      ...requestFieldsOf(n, appIndex),
      createdAt: new Date(createdAt),
      day,
      startedAt: new Date(createdAt + 2),
      finishedAt: new Date(createdAt + 40),
      providerMs: 30,
      attempts: 1,
      usage: usageOf,
      costNanos,
      result,
    });
    if (kind === 'image') {
      for (const index of [0, 1]) {
        const fileId = `${taskId.replace(/^task_/, 'img_')}_${index}`;
        await store.saveImage(fileId, Buffer.from('png bytes'), {
          appId,
          taskId,
          index,
          expiresAt: new Date(createdAt + config.IMAGE_URL_TTL * 1000),
        });
        if (fixture.fileIds.length < 2000) fixture.fileIds.push(fileId);
      }
      await billing.billImages(
        [0, 1].map((index) => ({
          taskId,
          index,
          appId,
          model,
          unitPriceNanos: 200_000_000,
          currency: 'CNY',
          day,
          createdAt: new Date(createdAt + 40),
        })),
      );
    }
    if (n % 5 === 0) {
      const attempts = n % 25 === 0 ? 2 : 1;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        await deliveries.record({
          appId,
          taskId,
          event: 'task.succeeded',
          webhookId: `msg_${taskId}`,
          url: 'https://hooks.example.com/gateway',
          attempt,
          redelivery: false,
          outcome: attempt < attempts ? 'retry' : 'delivered',
          httpStatus: attempt < attempts ? 500 : 200,
          durationMs: 35,
          createdAt: new Date(createdAt + 50 + attempt * 5000),
        });
      }
    }
    const key = `${appId}|${model}|${day}`;
    const entry = rollups.get(key) ?? {
      key: { appId, model, day },
      counters: { calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0 },
    };
    entry.counters.calls += 1;
    entry.counters.promptTokens += usageOf.prompt_tokens ?? 0;
    entry.counters.images += usageOf.images ?? 0;
    entry.counters.costNanos += costNanos;
    rollups.set(key, entry);
    if (fixture.tasks.length < 5000 || n % 97 === 0)
      fixture.tasks.splice(n % 5000, fixture.tasks.length >= 5000 ? 1 : 0, { taskId, appId, image: kind === 'image' });
    fixture.recorded += 1;
  };

  let next = fixture.recorded;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < size) {
        const n = next++;
        await recordOne(n);
        if (n % 20_000 === 0 && n > 0) process.stderr.write(`  … ${n.toLocaleString('en-US')} tasks\n`);
      }
    }),
  );
  // One batch per fill, named by its size, so the roll-ups take each fill once.
  await usage.fold(`growth-${size}`, [...rollups.values()]);
}

function shapeOf(kind: string, n: number, taskId: string) {
  if (kind === 'image') {
    const model = 'x-image-edit-plus-2025-12-15';
    const urls = [0, 1].map((i) => ({
      url: `https://gateway.example.com/v1/files/${taskId.replace(/^task_/, 'img_')}_${i}?exp=1795000000&sig=${'s'.repeat(43)}`,
      revised_prompt: 'make it black and white',
    }));
    return {
      model,
      result: JSON.stringify({ created: 1795000000, data: urls, usage: { image_count: 2 } }),
      usageOf: { images: 2 } as Record<string, number>,
      costNanos: 400_000_000,
    };
  }
  if (kind === 'chat') {
    const model = 'qwen-plus';
    const content = 'A measured answer of a few sentences, as chat completions usually are. '.repeat(8);
    const body = {
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: 1795000000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 40, completion_tokens: 120, total_tokens: 160 },
    };
    return {
      model,
      result: JSON.stringify(body),
      usageOf: { prompt_tokens: 40, completion_tokens: 120, total_tokens: 160 } as Record<string, number>,
      costNanos: 400_000,
    };
  }
  const model = 'text-embedding-v4';
  const dimensions = n % 2 === 0 ? 1024 : 256;
  const embedding = Array.from({ length: dimensions }, (_, i) => Math.sin(n + i) * 0.05);
  const body = {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding }],
    model,
    usage: { prompt_tokens: 12, total_tokens: 12 },
  };
  return {
    model,
    result: JSON.stringify(body),
    usageOf: { prompt_tokens: 12, total_tokens: 12 } as Record<string, number>,
    costNanos: 6_000,
  };
}

/**
 * The operators' listing of every account's applications as applications accumulate: filled through the repository
 * the console uses (one owner per ten applications), then the first page of 50 and the page after a cursor 1,000
 * applications down, each with the owners' emails.
 */
async function growApplications(app: INestApplicationContext, sizes: number[]): Promise<void> {
  const applications = app.get(ApplicationsRepository);
  const users = app.get(UsersRepository);
  const operators = app.get(ConsoleOperatorsService);
  print(`growth bench: the operators' "All apps" listing, ${SAMPLES} samples per read`);
  let created = 0;
  for (const size of sizes) {
    const started = Date.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (created < size) {
          const n = created++;
          const ownerId = `usr_fleet${Math.floor(n / 10)}`;
          if (n % 10 === 0)
            await users.create({ _id: ownerId, email: `fleet${n / 10}@example.com`, passwordHash: 'x' });
          await applications.create({
            _id: `app_fleet${String(n).padStart(7, '0')}`,
            ownerId,
            name: `fleet app ${n}`,
            description: 'an application of the growth bench',
            type: 'backend',
            usageScenario: '',
            expectedVolume: 0,
            scope: { capabilities: [], models: [] },
            dailyCallLimit: 1000,
            concurrencyLimit: 0,
            requestsPerMinute: 0,
            tokenQuota: 0,
            ipWhitelist: [],
            secretKeyEnc: 'x',
          } as never);
          if (n % 20_000 === 0 && n > 0) process.stderr.write(`  … ${n.toLocaleString('en-US')} applications\n`);
        }
      }),
    );
    print(
      `\n== ${size.toLocaleString('en-US')} applications (filled in ${((Date.now() - started) / 1000).toFixed(0)} s) ==`,
    );
    // A cursor 1,000 applications down the listing, found by paging there once.
    let deep: string | undefined;
    for (let page = 0; page < 5; page++) deep = (await operators.listApplications(deep, 200)).next ?? undefined;
    for (const [name, { p50, p99 }] of await measure({
      'all apps: first page of 50 (with owners)': () => operators.listApplications(undefined, 50),
      'all apps: a page 1,000 down': () => operators.listApplications(deep, 50),
    })) {
      print(`  ${name.padEnd(44)} p50 ${p50.toFixed(2).padStart(8)} ms  p99 ${p99.toFixed(2).padStart(8)} ms`);
    }
  }
}

/** Every application's refused calls past what its list keeps, as a flood of 429s leaves them. */
async function fillRefusals(app: INestApplicationContext, fixture: Fixture): Promise<void> {
  const refused = app.get(RefusedCalls);
  for (const { appId } of fixture.apps) {
    for (let i = 0; i < REFUSALS_KEPT + 200; i++) {
      refused.note(appId, {
        at: Date.now(),
        status: 429,
        code: 'RateLimited',
        message: 'requests per minute limit reached',
        method: 'POST',
        route: '/v1/chat/completions',
        requestId: `req_growth${i}`,
        keyId: 'key_growth',
        model: 'x-chat',
        async: false,
        latencyMs: 1,
      });
    }
    await refused.flush();
  }
}

/** Every read on a request path or a console page, each against a random sample. */
function reads(app: INestApplicationContext, fixture: Fixture): Record<string, () => Promise<unknown>> {
  const tasks = app.get(TasksRepository);
  const billing = app.get(BillingRecordsRepository);
  const deliveries = app.get(WebhookDeliveriesRepository);
  const usage = app.get(UsageDailyRepository);
  const keys = app.get(ApiKeysRepository);
  const users = app.get(UsersRepository);
  const connection = app.get<Connection>(getConnectionToken());
  const files = new mongo.GridFSBucket(connection.db!, { bucketName: 'images' });
  const today = utcDay();
  const any = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  const busiest = fixture.apps[0].appId;
  const imageTasks = fixture.tasks.filter((task) => task.image);
  return {
    'task by id for its owner (+ result)': () => {
      const task = any(fixture.tasks);
      return Promise.all([tasks.findForApp(task.taskId, task.appId), tasks.findResult(task.taskId)]);
    },
    'task by id of another application (404)': () => tasks.findForApp(any(fixture.tasks).taskId, 'app_someoneelse'),
    'task by a missing id (404)': () =>
      tasks.findForApp(`task_${crypto.randomBytes(11).toString('hex').slice(0, 22)}`, busiest),
    "an application's tasks, newest 20": () =>
      tasks.listForApp(busiest, { from: utcDaysBefore(today, 29), to: today, limit: 20 }),
    "an application's tasks, a page 3 days back": () =>
      tasks.listForApp(any(fixture.apps).appId, {
        from: utcDaysBefore(today, 29),
        to: utcDaysBefore(today, 3),
        limit: 50,
      }),
    'billing records of a task': () => {
      const task = any(imageTasks);
      return billing.listForTask(task.taskId, task.appId);
    },
    "an application's billing, 7 days, 50 newest": () =>
      billing.listForApp(busiest, { from: utcDaysBefore(today, 6), to: today, limit: 50 }),
    'usage over 30 days': () => usage.listForApp(any(fixture.apps).appId, utcDaysBefore(today, 29), today),
    "an application's webhook deliveries, 50": () =>
      deliveries.listForApp(busiest, { from: utcDaysBefore(today, 29), to: today, limit: 50 }),
    'API key by hash': () => keys.findByHash(any(fixture.apps).keyHash),
    'user by email': () => users.findByEmail(any(fixture.emails)),
    'file metadata by id': () => files.find({ _id: any(fixture.fileIds) as never }, { limit: 1 }).toArray(),
  };
}

/**
 * The Requests tab and page: the calls that became tasks through their feeds (growth-requests.ts), the refused ones
 * from Redis, unfiltered and filtered (the whole capped list read and filtered in memory).
 */
async function requestsReads(
  app: INestApplicationContext,
  fixture: Fixture,
): Promise<Record<string, () => Promise<unknown>>> {
  const busiest = fixture.apps[0].appId;
  const refusals = app.get(ConsoleRefusalsService);
  return {
    ...(await requestReads(app, busiest)),
    'requests: refused calls, newest 50': () => refusals.forApplication(busiest, 'usr_growth0', 50, 0),
    'requests: refused calls, a deep page': () =>
      refusals.forApplication(busiest, 'usr_growth0', 50, REFUSALS_KEPT - 50),
    'requests: refused calls of one key and model, 50': () =>
      refusals.forApplication(busiest, 'usr_growth0', 50, 0, { keyId: 'key_growth', model: 'x-chat' }),
    "requests: the account's refused, 200": () => refusals.forAccount('usr_growth0', 200),
  };
}

/**
 * p50 and p99 of each read. The reads take turns, one sample of each per round, so a pause of the machine (a
 * neighbour's burst, a GC, the kernel writing back) lands on all of them alike rather than on whichever read was
 * being timed.
 */
async function measure(
  reads: Record<string, () => Promise<unknown>>,
): Promise<Map<string, { p50: number; p99: number }>> {
  const entries = Object.entries(reads);
  for (let i = 0; i < Math.min(10, SAMPLES); i++) for (const [, read] of entries) await read();
  const times = new Map<string, number[]>(entries.map(([name]) => [name, []]));
  for (let i = 0; i < SAMPLES; i++) {
    for (const [name, read] of entries) {
      const started = process.hrtime.bigint();
      await read();
      times.get(name)!.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return new Map(
    [...times].map(([name, samples]) => {
      samples.sort((a, b) => a - b);
      return [
        name,
        {
          p50: samples[Math.floor(samples.length * 0.5)],
          p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))],
        },
      ];
    }),
  );
}

function psql(postgresUrl: string, sql: string): string {
  const url = new URL(postgresUrl);
  return execFileSync(
    path.join(services.ensurePostgres(), 'psql'),
    ['-h', url.hostname, '-p', url.port, '-U', 'postgres', '-d', 'ferretdb', '-Atc', sql],
    {
      env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) },
      encoding: 'utf8',
    },
  );
}

function diskBytes(postgresUrl: string): number {
  return Number(psql(postgresUrl, "SELECT pg_database_size('ferretdb')").trim());
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
