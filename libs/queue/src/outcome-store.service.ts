import { AppConfig } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { GatewayRedis } from './gateway-redis.service';
import type { TaskOutcome } from './job-contracts';
import { decodeOutcome, encodeOutcome, outcomeKey } from './outcome-codec';

/** Outcome keys outlive a crash between delivery and the task record only this long; the rerun writes them again. */
const OUTCOME_TTL_MS = 5 * 60_000;

/**
 * Finished outcomes in Redis, from the moment the worker has them until the task record is written. Delivery
 * stores the outcome and answers the waiting api instance in one round trip, so the MongoDB write is off the
 * caller's path while GET /v1/tasks can already read the result.
 */
@Injectable()
export class OutcomeStore {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(config: AppConfig, redis: GatewayRedis) {
    this.redis = redis.client;
    this.prefix = config.QUEUE_PREFIX;
  }

  async deliver(taskId: string, outcome: TaskOutcome, replyTo?: string): Promise<void> {
    const text = encodeOutcome(taskId, outcome);
    const transaction = this.redis.multi().set(outcomeKey(this.prefix, taskId), text, 'PX', OUTCOME_TTL_MS);
    if (replyTo) transaction.publish(replyTo, text);
    const results = await transaction.exec();
    const failed = results?.find(([error]) => error);
    if (failed) throw failed[0];
  }

  async read(taskId: string): Promise<TaskOutcome | null> {
    const text = await this.redis.get(outcomeKey(this.prefix, taskId));
    return text ? decodeOutcome(text).outcome : null;
  }

  async forget(taskId: string): Promise<void> {
    await this.redis.del(outcomeKey(this.prefix, taskId));
  }
}
