/**
 * The console's Requests reads for bench:growth: an application's tasks newest first, unfiltered and by each filter
 * (model, status, error code, API key, mode), the first page and a page deep in by cursor; and the task fields those
 * filters read, recorded in realistic proportions by both fills.
 */
import crypto from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { utcDay, utcDaysBefore } from '@gateway/common';
import { FeedQuery, NewTaskRecord, TaskFilter, TasksRepository } from '@gateway/db';

/** Records of one `recordEach` in the Requests-only fill: the worker's RecordWriter writes in batches too. */
const BATCH = 500;
/** Batches written at once. */
const BATCHES_IN_FLIGHT = 6;
/** Console pages read to find the deep page's cursor: 20 pages of 50, the 1,001st record on. */
const DEEP_PAGES = 20;
const PAGE = 50;
const FAILURE_CODES = ['UpstreamError', 'Timeout', 'InvalidParameter'];

/**
 * What the Requests filters read of the n-th task: two keys per application (60% and 30%) and 10% signed requests, a
 * third asked for with `X-Async`, 2% failed (a third each UpstreamError, Timeout, InvalidParameter).
 */
export function requestFieldsOf(
  n: number,
  appIndex: number,
): Pick<NewTaskRecord, 'keyId' | 'async' | 'status' | 'error'> {
  // A hash of n of its own, so none of these follows the application (n % 10) or the day.
  const h = Math.imul(n ^ 0x5bd1e995, 0x85ebca6b) >>> 4;
  const keyId = h % 10 === 9 ? 'signature' : h % 10 < 6 ? `key_growth${appIndex}` : `key_growth${appIndex}b`;
  const failed = (h >>> 4) % 50 === 7;
  return {
    keyId,
    async: (h >>> 10) % 3 === 0,
    status: failed ? 'failed' : 'succeeded',
    ...(failed
      ? { error: { status: 502, code: FAILURE_CODES[(h >>> 12) % 3], message: 'the upstream answered 500' } }
      : {}),
  };
}

/** The application of the n-th task: one with 40% of the traffic, the others sharing the rest. */
export function appIndexOf(n: number, apps: number): number {
  return n % 10 < 4 ? 0 : 1 + (n % (apps - 1));
}

/** The n-th task's day within the last `days`, scattered independently of its application. */
export function dayOf(n: number, days: number, today = utcDay()): string {
  return utcDaysBefore(today, (Math.imul(n, 2654435761) >>> 8) % days);
}

/**
 * Records tasks from `from` up to `size` through TasksRepository.recordEach in batches, without result bodies,
 * billing or webhooks: what the Requests listings read, filled far faster than bench:growth's full fill.
 */
export async function fillRequestsOnly(
  app: INestApplicationContext,
  appIds: string[],
  from: number,
  size: number,
  days: number,
): Promise<void> {
  const tasks = app.get(TasksRepository);
  const today = utcDay();
  const models = ['text-embedding-v4', 'qwen-plus', 'qwen-plus', 'x-image-edit-plus-2025-12-15'];
  let next = from;
  let reported = from;
  await Promise.all(
    Array.from({ length: BATCHES_IN_FLIGHT }, async () => {
      while (next < size) {
        const start = next;
        next = Math.min(size, next + BATCH);
        const batch: NewTaskRecord[] = [];
        for (let n = start; n < next; n++) {
          const appIndex = appIndexOf(n, appIds.length);
          const day = dayOf(n, days, today);
          const createdAt = Date.parse(`${day}T00:00:00Z`) + (n % 86_400) * 1000;
          const model = models[n % 4];
          batch.push({
            _id: `task_${crypto.randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22)}`,
            appId: appIds[appIndex],
            requestId: `req_${n}`,
            endpoint: model === 'text-embedding-v4' ? '/v1/embeddings' : '/v1/chat/completions',
            model,
            resolvedModel: model,
            provider: 'primary',
            createdAt: new Date(createdAt),
            day,
            startedAt: new Date(createdAt + 2),
            finishedAt: new Date(createdAt + 40),
            providerMs: 30,
            attempts: 1,
            usage: { prompt_tokens: 40, completion_tokens: 120, total_tokens: 160 },
            costNanos: 400_000,
            ...requestFieldsOf(n, appIndex),
            // bench:growth's application i belongs to usr_growth<i> (its set-up).
            ownerId: `usr_growth${appIndex}`,
          });
        }
        await tasks.recordEach(batch);
        if (next - reported >= 50_000) {
          reported = next;
          process.stderr.write(`  … ${next.toLocaleString('en-US')} tasks\n`);
        }
      }
    }),
  );
}

/**
 * The Requests reads of the busiest application over the console's 30 days, 50 a page: unfiltered and by each
 * filter, the newest page and the page after DEEP_PAGES pages (its cursor found once, before timing).
 */
export async function requestReads(
  app: INestApplicationContext,
  appId: string,
): Promise<Record<string, () => Promise<unknown>>> {
  const tasks = app.get(TasksRepository);
  const today = utcDay();
  const range: FeedQuery = { from: utcDaysBefore(today, 29), to: today, limit: PAGE };
  const byApp = (filter?: TaskFilter) => (query: FeedQuery) => tasks.listForApp(appId, query, filter);
  const listings: [string, (query: FeedQuery) => Promise<{ next: string | null }>][] = [
    ['all', byApp()],
    ['model', byApp({ field: 'model', value: 'text-embedding-v4' })],
    ['status failed', byApp({ field: 'status', value: 'failed' })],
    ['code Timeout', byApp({ field: 'code', value: 'Timeout' })],
    ['key', byApp({ field: 'key', value: 'key_growth0b' })],
    ['mode async', byApp({ field: 'mode', value: 'async' })],
    // The account page: the busiest application's owner (usr_growth0) owns only it.
    ['of the account', (query) => tasks.listForOwner('usr_growth0', query)],
  ];
  const reads: Record<string, () => Promise<unknown>> = {};
  for (const [name, list] of listings) {
    let cursor: string | undefined;
    let depth = 0;
    for (; depth < DEEP_PAGES; depth++) {
      const page = await list({ ...range, cursor });
      if (!page.next) break;
      cursor = page.next ?? undefined;
    }
    reads[`requests: tasks ${name}, newest ${PAGE}`] = () => list(range);
    reads[`requests: tasks ${name}, page ${depth + 1} by cursor`] = () => list({ ...range, cursor });
  }
  return reads;
}
