import type { Queue, RedisClient } from 'bullmq';
import type Redis from 'ioredis';

/**
 * A connection as BullMQ hands it out: its ioredis adapter is a Proxy that is both its RedisClient and the ioredis
 * client underneath, so ioredis's own commands (PING, INFO with a section, defineCommand) work on it.
 */
export type BullRedis = RedisClient & Redis;

/** A queue's command connection, with the ioredis commands BullMQ's RedisClient type leaves out. */
export function bullClientOf(queue: Queue): Promise<BullRedis> {
  return queue.client as Promise<BullRedis>;
}
