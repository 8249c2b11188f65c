import { LatencyHistogram, latencyBucket, randomBase62 } from '@gateway/common';
import { UsageDailyRepository } from '@gateway/db';
import { defineScript, GatewayRedis, RedisKeys } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import type Redis from 'ioredis';

/** How long one fold may hold the lease; a holder that dies frees it after this. */
const FOLD_LEASE_MS = 60_000;
/** Batches folded per turn: usage counted faster than this is folded on the next turn. */
const BATCHES_PER_FOLD = 10;

/**
 * The batch to fold: the one a fold that did not finish left (same id, so the roll-ups it reached skip it), or else
 * everything counted since, renamed so counting goes on into a fresh hash. KEYS: pending, folding, fold id. ARGV: a
 * new batch's id.
 */
const TAKE_BATCH = defineScript<
  [pending: string, folding: string, foldId: string],
  [newId: string],
  [id: string, fields: string[]] | null
>({
  name: 'takeUsageBatch',
  keys: 3,
  lua: `
if redis.call('EXISTS', KEYS[2]) == 0 then
  if redis.call('EXISTS', KEYS[1]) == 0 then return false end
  redis.call('RENAME', KEYS[1], KEYS[2])
  redis.call('SET', KEYS[3], ARGV[1])
end
return {redis.call('GET', KEYS[3]) or ARGV[1], redis.call('HGETALL', KEYS[2])}`,
});

/** Ends batch ARGV[1] once every roll-up has it. KEYS: folding, fold id. */
const FINISH_BATCH = defineScript<[folding: string, foldId: string], [id: string], 1>({
  name: 'finishUsageBatch',
  keys: 2,
  lua: `
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[1], KEYS[2]) end
return 1`,
});

/** Releases the fold lease if ARGV[1] still holds it. KEYS: lease. */
const RELEASE = defineScript<[lease: string], [token: string], 1>({
  name: 'releaseFoldLease',
  keys: 1,
  lua: `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`,
});

/** What a roll-up counts, all integers; cost in nanos of the catalog currency. */
export const USAGE_COUNTERS = ['calls', 'errors', 'promptTokens', 'completionTokens', 'images', 'costNanos'] as const;
export type UsageCounter = (typeof USAGE_COUNTERS)[number];

/** A ledger counter of the latency histogram: `lat` and the bucket's upper bound in ms (`lat250`). */
const LATENCY_COUNTER = 'lat';

/** One roll-up's share of a batch: application, model, UTC day, and what to add. */
interface UsageIncrement {
  appId: string;
  model: string;
  day: string;
  counters: Record<UsageCounter, number>;
  /** Calls per latency bucket (@gateway/common latency-histogram), by the bucket's upper bound in ms. */
  latency: LatencyHistogram;
}

interface UsageBatch {
  id: string;
  increments: UsageIncrement[];
}

/**
 * The ledger fields a task's usage adds to (OutcomeDelivery counts them with its delivery): its counters, and one call
 * in the bucket of its latency when it has one.
 */
export function usageFields(
  key: { appId: string; model: string; day: string },
  counters: Partial<Record<UsageCounter, number>>,
  latencyMs?: number,
): Record<string, number> {
  const prefix = `${key.appId}|${key.model}|${key.day}|`;
  const fields = Object.fromEntries(Object.entries(counters).map(([counter, amount]) => [prefix + counter, amount]));
  if (latencyMs !== undefined) fields[`${prefix}${LATENCY_COUNTER}${latencyBucket(latencyMs)}`] = 1;
  return fields;
}

/**
 * Usage counted in Redis at delivery, exactly once per task, and folded into the MongoDB roll-ups in batches
 * (docs/decisions/exact-usage.md). A fold renames what is counted to a batch with a random id; each roll-up takes
 * the increment and the id together, so a fold that dies halfway is run again with the same id and changes only the
 * roll-ups it had not reached. One process folds at a time, under a lease: FerretDB applies an update by reading and
 * rewriting the document, so two writers of one roll-up could lose an increment.
 */
@Injectable()
export class UsageLedger {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;

  constructor(
    redis: GatewayRedis,
    private readonly rollups: UsageDailyRepository,
  ) {
    this.redis = redis.client;
    this.keys = redis.keys;
  }

  /** Folds what is counted; returns the batches folded, or null when another process holds the lease. */
  fold(): Promise<number | null> {
    return this.underLease(() => this.foldHeld());
  }

  /** Runs `work` holding the fold lease, so no fold runs meanwhile; null when another process holds it. */
  async underLease<T>(work: () => Promise<T>): Promise<T | null> {
    const token = randomBase62(16);
    const taken = await this.redis.set(this.keys.usageFoldLease(), token, 'PX', FOLD_LEASE_MS, 'NX');
    if (!taken) return null;
    try {
      return await work();
    } finally {
      await RELEASE.run(this.redis, [this.keys.usageFoldLease()], [token]);
    }
  }

  /** Folds with the lease already held (by underLease). */
  async foldHeld(): Promise<number> {
    let folded = 0;
    for (; folded < BATCHES_PER_FOLD; folded++) {
      const batch = await this.takeBatch();
      if (!batch) break;
      await this.rollups.fold(
        batch.id,
        batch.increments.map(({ appId, model, day, counters, latency }) => ({
          key: { appId, model, day },
          counters,
          latency,
        })),
      );
      await FINISH_BATCH.run(this.redis, [this.keys.usageFolding(), this.keys.usageFoldId()], [batch.id]);
    }
    return folded;
  }

  /** Whether usage of `day` is counted and not folded yet. */
  async hasUnfolded(day: string): Promise<boolean> {
    for (const key of [this.keys.usagePending(), this.keys.usageFolding()]) {
      const fields = await this.redis.hkeys(key);
      if (fields.some((field) => field.slice(0, field.lastIndexOf('|')).endsWith(`|${day}`))) return true;
    }
    return false;
  }

  /** The batch to fold next, or null when nothing is counted; hold the lease. */
  private async takeBatch(): Promise<UsageBatch | null> {
    const taken = await TAKE_BATCH.run(
      this.redis,
      [this.keys.usagePending(), this.keys.usageFolding(), this.keys.usageFoldId()],
      [randomBase62(16)],
    );
    if (!taken) return null;
    const [id, flat] = taken;
    return { id, increments: parseIncrements(flat) };
  }
}

/** HGETALL's flat field/value list as one increment per roll-up. */
function parseIncrements(flat: string[]): UsageIncrement[] {
  const byKey = new Map<string, UsageIncrement>();
  for (let i = 0; i < flat.length; i += 2) {
    const field = flat[i];
    const counterAt = field.lastIndexOf('|');
    const dayAt = field.lastIndexOf('|', counterAt - 1);
    const appAt = field.indexOf('|');
    const key = field.slice(0, counterAt);
    let increment = byKey.get(key);
    if (!increment) {
      increment = {
        appId: field.slice(0, appAt),
        model: field.slice(appAt + 1, dayAt),
        day: field.slice(dayAt + 1, counterAt),
        counters: { calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0 },
        latency: {},
      };
      byKey.set(key, increment);
    }
    const counter = field.slice(counterAt + 1);
    if (counter in increment.counters) increment.counters[counter as UsageCounter] += Number(flat[i + 1]);
    else if (/^lat\d+$/.test(counter)) {
      const bound = counter.slice(LATENCY_COUNTER.length);
      increment.latency[bound] = (increment.latency[bound] ?? 0) + Number(flat[i + 1]);
    }
  }
  return [...byKey.values()];
}
