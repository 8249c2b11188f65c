import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { GatewayRedis } from './gateway-redis.service';
import type { RedisKeys } from './redis-keys';

/** Who first sent an Idempotency-Key: the request's fingerprint and the task it started. */
export interface IdempotencyEntry {
  fingerprint: string;
  taskId: string;
  /** The first request was asynchronous: a replay answers its 202 again. */
  async: boolean;
}

export type IdempotencyClaim = { owner: true } | { owner: false; entry: IdempotencyEntry };

/** A claim lasts this long until its job is enqueued: a process that dies before that frees the key soon. */
const PENDING_TTL_S = 120;
/** Results are replayed for 24 h (docs/architecture.md). */
const KEPT_TTL_S = 24 * 3600;

/**
 * Idempotency-Key entries in Redis, one per (application, key). The entry only says which task answers the key:
 * the answer itself is that task's outcome or record, so a replay always matches what the first caller received.
 */
@Injectable()
export class IdempotencyStore {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;

  constructor(redis: GatewayRedis) {
    this.redis = redis.client;
    this.keys = redis.keys;
  }

  /** Takes the key for `entry`, or returns whoever holds it. */
  async claim(appId: string, key: string, entry: IdempotencyEntry): Promise<IdempotencyClaim> {
    const redisKey = this.keys.idempotency(appId, key);
    const taken = await this.redis.set(redisKey, JSON.stringify(entry), 'EX', PENDING_TTL_S, 'NX');
    if (taken) return { owner: true };
    const existing = await this.redis.get(redisKey);
    // Released in between: the next round claims it.
    if (!existing) return this.claim(appId, key, entry);
    return { owner: false, entry: JSON.parse(existing) as IdempotencyEntry };
  }

  /** The job exists: keep the key for the replay period. */
  async keep(appId: string, key: string, entry: IdempotencyEntry): Promise<void> {
    await this.redis.set(this.keys.idempotency(appId, key), JSON.stringify(entry), 'EX', KEPT_TTL_S);
  }

  /** The first request ended before its job was enqueued (refused by a limit, say): a retry may run afresh. */
  async release(appId: string, key: string, taskId: string): Promise<void> {
    const redisKey = this.keys.idempotency(appId, key);
    const current = await this.redis.get(redisKey);
    if (current && (JSON.parse(current) as IdempotencyEntry).taskId === taskId) await this.redis.del(redisKey);
  }

  async read(appId: string, key: string): Promise<IdempotencyEntry | null> {
    const text = await this.redis.get(this.keys.idempotency(appId, key));
    return text ? (JSON.parse(text) as IdempotencyEntry) : null;
  }
}
