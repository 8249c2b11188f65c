/**
 * Audit log bench: how long the console's audit listings and a day of `gw audit` take as the log grows.
 *
 * Starts Redis and the embedded database (FerretDB over PostgreSQL) in a temp dir and records audit entries through
 * AuditLogRepository.recordEach, 500 a write, to each size in --sizes: 10 applications of 10 owners (one with 40% of
 * the records), spread over the last 30 days; application updates, key rotations, Secret Key resets and sign-ins.
 * At each size it times, --runs times, the first page (50 records, the console's default) of: every record (an
 * operator), one owner's, one action's (key.rotate), one application's one action (secret.reset), the page after the
 * first of every record, and `gw audit`'s read of today (AuditLogRepository.listDay).
 *
 * Run: npm run bench:audit [-- --sizes 100000,1000000 --runs 5]
 */
import { benchConfig, benchContext, withEmbeddedStack } from './embedded-stack';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import { utcDay, utcDaysBefore } from '@gateway/common';
import { AuditEntry, AuditLogRepository } from '@gateway/db';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '100000,1000000' }, runs: { type: 'string', default: '5' } },
});
const SIZES = values.sizes.split(',').map(Number);
const RUNS = Number(values.runs);
const APPS = 10;
const DAYS = 30;
const BATCH = 500;
const IN_FLIGHT = 8;
const LIMIT = 50;

type Context = INestApplicationContext;

async function main(): Promise<void> {
  await withEmbeddedStack('audit', async (stack) => {
    const config = benchConfig(stack, 'audit');
    const app = await benchContext(config, 'audit-bench');
    const log = app.get(AuditLogRepository);
    const today = utcDay();
    const query = { from: utcDaysBefore(today, DAYS - 1), to: today, limit: LIMIT };
    let recorded = 0;
    for (const size of SIZES) {
      const started = Date.now();
      recorded = await fill(app, recorded, size);
      print(
        `\n== ${size.toLocaleString('en-US')} records (filled in ${((Date.now() - started) / 1000).toFixed(0)} s) ==`,
      );
      // As in bench/growth.ts: a fill this fast leaves autovacuum's work and dirty pages that spread-out traffic
      // would not; clear both before timing.
      psql(stack.postgresUrl, 'VACUUM (ANALYZE)');
      psql(stack.postgresUrl, 'CHECKPOINT');
      execFileSync('sync');
      const first = await log.list({ all: true }, undefined, query);
      const cases: [string, () => Promise<number>][] = [
        ['operator, every record', async () => (await log.list({ all: true }, undefined, query)).data.length],
        [
          'operator, the next page',
          async () => (await log.list({ all: true }, undefined, { ...query, cursor: first.next! })).data.length,
        ],
        [
          'owner of the busiest application',
          async () => (await log.list({ ownerId: ownerOf(0) }, undefined, query)).data.length,
        ],
        ['operator, action key.rotate', async () => (await log.list({ all: true }, 'key.rotate', query)).data.length],
        [
          'one application, action secret.reset',
          async () => (await log.list({ appId: appOf(3) }, 'secret.reset', query)).data.length,
        ],
        ['gw audit: one day (listDay)', async () => (await log.listDay(today)).length],
      ];
      for (const [name, run] of cases) {
        const times: number[] = [];
        let rows = 0;
        for (let i = 0; i < RUNS; i++) {
          const begun = performance.now();
          rows = await run();
          times.push(performance.now() - begun);
        }
        times.sort((a, b) => a - b);
        print(
          `  ${name.padEnd(38)} ${String(rows).padStart(6)} records  median ${times[Math.floor(times.length / 2)].toFixed(1)} ms, worst ${times[times.length - 1].toFixed(1)} ms (${RUNS} runs)`,
        );
      }
    }
    await app.close();
  });
}

const appOf = (i: number) => `app_audit${String(i).padStart(2, '0')}`;
const ownerOf = (i: number) => `user_audit${String(i).padStart(2, '0')}`;

/** Records entries n = from … size-1, BATCH a write, IN_FLIGHT writes at once; returns the new count. */
async function fill(app: Context, from: number, size: number): Promise<number> {
  const log = app.get(AuditLogRepository);
  const today = utcDay();
  let next = from;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < size) {
        const first = next;
        next = Math.min(size, next + BATCH);
        const batch: (AuditEntry & { createdAt: Date })[] = [];
        for (let n = first; n < next; n++) batch.push(entryOf(n, today));
        await log.recordEach(batch);
      }
    }),
  );
  return size;
}

function entryOf(n: number, today: string): AuditEntry & { createdAt: Date } {
  const i = n % 10 < 4 ? 0 : 1 + (n % (APPS - 1));
  // Days scattered independently of the application, as in bench/growth.ts.
  const day = utcDaysBefore(today, (Math.imul(n, 2654435761) >>> 8) % DAYS);
  const createdAt = new Date(Date.parse(`${day}T00:00:00Z`) + (n % 86_400) * 1000);
  const actor = { actorId: ownerOf(i), actorEmail: `owner${i}@example.com`, address: '203.0.113.7' };
  const kind = n % 20;
  if (kind < 4) return { ...actor, createdAt, action: 'auth.sign_in', userId: ownerOf(i), changes: {} };
  const onApp = { ...actor, createdAt, appId: appOf(i), ownerId: ownerOf(i) };
  if (kind < 6)
    return {
      ...onApp,
      action: 'key.rotate',
      changes: {
        api_keys: {
          before: [{ prefix: 'sk-AbCdEfG…', status: 'active', expires_at: null }],
          after: [{ prefix: 'sk-HiJkLmN…', status: 'active', expires_at: null }],
        },
      },
    };
  if (kind === 6)
    return { ...onApp, action: 'secret.reset', changes: { secret_key: { before: 'previous', after: 'new' } } };
  return {
    ...onApp,
    action: 'application.update',
    changes: {
      daily_call_limit: { before: 1000 + (n % 7), after: 2000 },
      ip_whitelist: { before: [], after: ['10.0.0.0/8'] },
    },
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
