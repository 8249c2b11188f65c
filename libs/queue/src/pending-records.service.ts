import { defineScript, GatewayRedis, RedisKeys } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { TaskOutcome } from './job-contracts';
import { decodeOutcome } from './outcome-codec';

/**
 * Takes up to ARGV[2] tasks due by ARGV[1] and moves them ARGV[3] ms on, so concurrent backlogs take different ones
 * and a backlog that dies holding some frees them when its claim runs out. KEYS: records due, pending records.
 */
const CLAIM = defineScript<
  [recordsDue: string, pendingRecords: string],
  [now: number, limit: number, claimMs: number],
  string[]
>({
  name: 'claimDueRecords',
  keys: 2,
  lua: `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local claimed = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[3]), id)
  local record = redis.call('HGET', KEYS[2], id)
  if record then
    claimed[#claimed + 1] = id
    claimed[#claimed + 1] = record
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return claimed`,
});

/** A delivered task whose MongoDB record is still to be written. */
export interface PendingRecord {
  taskId: string;
  /** The record's fields, as OutcomeDelivery filed them. */
  record: string;
  /** Its delivered outcome; null only if the outcome key was lost (Redis without its data). */
  outcome: TaskOutcome | null;
}

/**
 * Delivered tasks awaiting their MongoDB record (docs/decisions/exact-usage.md). The worker that delivered a task
 * writes its record at once and settles it here; when it cannot (MongoDB away, the worker killed), the record
 * backlog takes the task once it is due and writes it whenever MongoDB is back.
 */
@Injectable()
export class PendingRecords {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;

  constructor(redis: GatewayRedis) {
    this.redis = redis.client;
    this.keys = redis.keys;
  }

  /** Claims up to `limit` tasks due by `now` for `claimMs`, oldest first, with their outcomes. */
  async claimDue(now: number, limit: number, claimMs: number): Promise<PendingRecord[]> {
    const flat = await CLAIM.run(
      this.redis,
      [this.keys.recordsDue(), this.keys.pendingRecords()],
      [now, limit, claimMs],
    );
    const claimed: { taskId: string; record: string }[] = [];
    for (let i = 0; i < flat.length; i += 2) claimed.push({ taskId: flat[i], record: flat[i + 1] });
    if (claimed.length === 0) return [];
    const outcomes = await this.redis.mget(claimed.map(({ taskId }) => this.keys.outcome(taskId)));
    return claimed.map((entry, i) => ({ ...entry, outcome: outcomes[i] ? decodeOutcome(outcomes[i]).outcome : null }));
  }

  /** The pending record of one task, if it has one. */
  async find(taskId: string): Promise<PendingRecord | null> {
    const [record, outcome] = await this.redis
      .multi()
      .hget(this.keys.pendingRecords(), taskId)
      .get(this.keys.outcome(taskId))
      .exec()
      .then((replies) => (replies ?? []).map(([error, value]) => (error ? null : (value as string | null))));
    return record ? { taskId, record, outcome: outcome ? decodeOutcome(outcome).outcome : null } : null;
  }

  /** The record is written: the task leaves the backlog and its outcome key goes (GET /v1/tasks reads MongoDB now). */
  async settle(taskId: string): Promise<void> {
    await this.settleEach([taskId]);
  }

  /** `settle` for several tasks, in one round trip. */
  async settleEach(taskIds: string[]): Promise<void> {
    if (taskIds.length === 0) return;
    const replies = await this.redis
      .multi()
      .hdel(this.keys.pendingRecords(), ...taskIds)
      .zrem(this.keys.recordsDue(), ...taskIds)
      .del(...taskIds.map((taskId) => this.keys.outcome(taskId)))
      .exec();
    const failure = replies?.find(([error]) => error)?.[0];
    if (failure) throw failure;
  }

  /** How many delivered tasks await their record. */
  count(): Promise<number> {
    return this.redis.hlen(this.keys.pendingRecords());
  }

  /** The days (YYYY-MM-DD) of the records still pending, with how many each. */
  async pendingDays(): Promise<Map<string, number>> {
    const days = new Map<string, number>();
    const stream = this.redis.hscanStream(this.keys.pendingRecords(), { count: 500 });
    for await (const chunk of stream as AsyncIterable<string[]>)
      for (let i = 1; i < chunk.length; i += 2) {
        const day = (JSON.parse(chunk[i]) as { day?: string }).day;
        if (day) days.set(day, (days.get(day) ?? 0) + 1);
      }
    return days;
  }
}
