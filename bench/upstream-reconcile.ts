/**
 * Upstream reconciliation bench: how long `gw usage:reconcile --upstream` takes for one day as the task records grow.
 *
 * Starts Redis and the embedded database (FerretDB over PostgreSQL) in a temp dir and records tasks through
 * TasksRepository.recordEach, 200 a write as the worker batches them, to each size in --sizes: 10 applications (one
 * with 40% of the traffic), spread over the last 30 days; embeddings, chat and image edits of 2 images, each with
 * its metered route and upstream attempts (one in 50 image edits with a spent attempt). At each size it times
 * UpstreamReconciler.reconcile for today, --runs times, and prints the day's records and the median and worst run.
 *
 * Run: npm run bench:upstream-reconcile [-- --sizes 100000,1000000 --runs 3]
 */
import { benchConfig, benchContext, withEmbeddedStack } from './embedded-stack';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { Connection } from 'mongoose';
import type { UpstreamUsage } from '@gateway/contracts';
import { utcDay, utcDaysBefore } from '@gateway/common';
import { ApplicationsRepository, NewTaskRecord, TasksRepository } from '@gateway/db';
import { CatalogModule } from '@gateway/catalog';
import { UpstreamReconciler } from '@gateway/ledger';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '100000,1000000' }, runs: { type: 'string', default: '3' } },
});
const SIZES = values.sizes.split(',').map(Number);
const RUNS = Number(values.runs);
const APPS = 10;
const DAYS = 30;
const BATCH = 200;
const IN_FLIGHT = 8;

type Context = INestApplicationContext;

async function main(): Promise<void> {
  await withEmbeddedStack('upstream-reconcile', async (stack) => {
    const config = benchConfig(stack, 'reconcile');
    const app = await benchContext(config, 'upstream-reconcile-bench', {
      imports: [CatalogModule],
      providers: [UpstreamReconciler],
    });
    const apps = await createApps(app);
    let recorded = 0;
    for (const size of SIZES) {
      const started = Date.now();
      recorded = await fill(app, apps, recorded, size);
      print(
        `\n== ${size.toLocaleString('en-US')} tasks (filled in ${((Date.now() - started) / 1000).toFixed(0)} s) ==`,
      );
      // As in bench/growth.ts: a fill this fast leaves autovacuum's work and dirty pages that spread-out traffic
      // would not; clear both before timing.
      psql(stack.postgresUrl, 'VACUUM (ANALYZE)');
      psql(stack.postgresUrl, 'CHECKPOINT');
      execFileSync('sync');
      const times: number[] = [];
      let result: Awaited<ReturnType<UpstreamReconciler['reconcile']>> | undefined;
      for (let run = 0; run < RUNS; run++) {
        const begun = performance.now();
        result = await app.get(UpstreamReconciler).reconcile(utcDay());
        times.push(performance.now() - begun);
      }
      times.sort((a, b) => a - b);
      print(
        `  usage:reconcile --upstream, today: ${result!.tasks.toLocaleString('en-US')} records, ${result!.routes.length} routes; median ${(times[Math.floor(times.length / 2)] / 1000).toFixed(2)} s, worst ${(times[times.length - 1] / 1000).toFixed(2)} s (${RUNS} runs)`,
      );
    }
    await app.close();
  });
}

async function createApps(app: Context): Promise<string[]> {
  const applications = app.get(ApplicationsRepository);
  const ids: string[] = [];
  for (let i = 0; i < APPS; i++) {
    const appId = `app_reconcile${String(i).padStart(2, '0')}`;
    await applications.create({
      _id: appId,
      ownerId: `usr_reconcile${i}`,
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
    // A month old, as a deployment with 30 days of tasks has.
    await app
      .get<Connection>(getConnectionToken())
      .db!.collection('applications')
      .updateOne({ _id: appId as never }, { $set: { createdAt: new Date(Date.now() - (DAYS + 1) * 86_400_000) } });
    ids.push(appId);
  }
  return ids;
}

/** Records tasks n = from … size-1, BATCH a write, IN_FLIGHT writes at once; returns the new count. */
async function fill(app: Context, apps: string[], from: number, size: number): Promise<number> {
  const tasks = app.get(TasksRepository);
  const today = utcDay();
  let next = from;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < size) {
        const first = next;
        next = Math.min(size, next + BATCH);
        const batch: NewTaskRecord[] = [];
        for (let n = first; n < next; n++) batch.push(taskOf(n, apps, today));
        await tasks.recordEach(batch);
      }
    }),
  );
  return size;
}

function taskOf(n: number, apps: string[], today: string): NewTaskRecord {
  const appId = apps[n % 10 < 4 ? 0 : 1 + (n % (APPS - 1))];
  // Days scattered independently of the application, as in bench/growth.ts.
  const day = utcDaysBefore(today, (Math.imul(n, 2654435761) >>> 8) % DAYS);
  const createdAt = new Date(Date.parse(`${day}T00:00:00Z`) + (n % 86_400) * 1000);
  const kind = n % 20 === 0 ? 'image' : n % 20 < 10 ? 'embeddings' : 'chat';
  const taskId = `task_${crypto.randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22)}`;
  const shape: {
    model: string;
    route: string;
    usage: Record<string, number>;
    costNanos: number;
    computed: UpstreamUsage;
    reported: UpstreamUsage;
  } =
    kind === 'image'
      ? {
          model: 'qwen-image-edit-plus',
          route: 'dashscope:qwen-image-edit-plus',
          usage: { prompt_tokens: 12, total_tokens: 12, images: 2 },
          costNanos: 400_000_000,
          computed: { images: 2, costNanos: 400_000_000 },
          reported: { images: 2 },
        }
      : kind === 'chat'
        ? {
            model: 'qwen-plus',
            route: 'dashscope:qwen-plus',
            usage: { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
            costNanos: 256_000,
            computed: { promptTokens: 120, completionTokens: 80, costNanos: 256_000 },
            reported: { promptTokens: 120, completionTokens: 80 },
          }
        : {
            model: 'text-embedding-v4',
            route: 'dashscope:text-embedding-v4',
            usage: { prompt_tokens: 64, total_tokens: 64 },
            costNanos: 32_000,
            computed: { promptTokens: 64, costNanos: 32_000 },
            reported: { promptTokens: 64 },
          };
  const spent = kind === 'image' && n % 1000 === 0;
  return {
    _id: taskId,
    appId,
    requestId: `req_${n}`,
    endpoint: kind === 'image' ? '/v1/images/edits' : kind === 'chat' ? '/v1/chat/completions' : '/v1/embeddings',
    model: shape.model,
    resolvedModel: shape.model,
    provider: 'dashscope',
    status: 'succeeded',
    createdAt,
    day,
    startedAt: new Date(createdAt.getTime() + 2),
    finishedAt: new Date(createdAt.getTime() + 40),
    providerMs: 30,
    attempts: 1,
    usage: shape.usage,
    costNanos: shape.costNanos,
    upstream: [
      ...(spent ? [{ route: shape.route, image: 0, outcome: 'spent', ms: 30_000 }] : []),
      { route: shape.route, outcome: 'ok', requestId: crypto.randomUUID(), status: 200, ms: 30 },
    ],
    metered: [{ route: shape.route, computed: shape.computed, reported: shape.reported }],
    result: '{"object":"list"}',
  };
}

function psql(postgresUrl: string, sql: string): string {
  const url = new URL(postgresUrl);
  return execFileSync(
    path.join(services.ensurePostgres(), 'psql'),
    ['-h', url.hostname, '-p', url.port, '-U', 'postgres', '-d', 'ferretdb', '-Atc', sql],
    { env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) }, encoding: 'utf8' },
  );
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
