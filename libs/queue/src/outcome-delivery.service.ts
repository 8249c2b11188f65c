import { AppConfig } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { GatewayRedis } from './gateway-redis.service';
import type { TaskOutcome } from './job-contracts';
import { decodeOutcome, encodeOutcome } from './outcome-codec';
import { RedisKeys } from './redis-keys';

/** Outcome keys outlive a crash between delivery and the task record only this long; the rerun writes them again. */
const OUTCOME_TTL_MS = 5 * 60_000;

/**
 * How a worker hands a finished task's outcome back: it stores the outcome in Redis and answers the waiting api
 * instance in one round trip, so the MongoDB write is off the caller's path while GET /v1/tasks can already read
 * the result. The outcome key lives until the task record is written.
 */
@Injectable()
export class OutcomeDelivery {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;

  constructor(config: AppConfig, redis: GatewayRedis) {
    this.redis = redis.client;
    this.keys = new RedisKeys(config.REDIS_PREFIX);
  }

  async deliver(taskId: string, outcome: TaskOutcome, replyTo?: string): Promise<void> {
    const text = encodeOutcome(taskId, outcome);
    const transaction = this.redis.multi().set(this.keys.outcome(taskId), text, 'PX', OUTCOME_TTL_MS);
    if (replyTo) transaction.publish(replyTo, text);
    const results = await transaction.exec();
    const failure = results?.find(([error]) => error)?.[0];
    if (failure) throw failure;
  }

  async read(taskId: string): Promise<TaskOutcome | null> {
    const text = await this.redis.get(this.keys.outcome(taskId));
    return text ? decodeOutcome(text).outcome : null;
  }

  async forget(taskId: string): Promise<void> {
    await this.redis.del(this.keys.outcome(taskId));
  }
}
