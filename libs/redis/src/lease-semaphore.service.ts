import { randomBase62 } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { GatewayRedis } from './gateway-redis.service';
import { defineScript } from './redis-script';

/**
 * Takes a slot if fewer than `limit` unexpired leases exist. Leases are scored by expiry on Redis's own clock,
 * so workers with skewed clocks agree, and a slot held by a process that died frees itself when its lease ends.
 */
const ACQUIRE = defineScript<[leases: string], [limit: number, leaseMs: number, leaseId: string], 0 | 1>({
  name: 'acquireLease',
  keys: 1,
  lua: `
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], nowMs + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1`,
});

export interface Lease {
  release(): Promise<void>;
}

/** A counting semaphore shared by every process on the Redis (docs/contracts.md, docs/architecture.md): atomic, lease-based. */
@Injectable()
export class LeaseSemaphore {
  constructor(private readonly redis: GatewayRedis) {}

  /** A lease now, or null when `limit` are held. */
  async tryAcquire(name: string, limit: number, leaseMs: number): Promise<Lease | null> {
    const key = this.redis.keys.semaphore(name);
    const leaseId = randomBase62(16);
    if ((await this.redis.run(ACQUIRE, [key], [limit, leaseMs, leaseId])) !== 1) return null;
    return { release: async () => void (await this.redis.client.zrem(key, leaseId)) };
  }

  /** Waits for a lease (polling with growing pauses up to 100 ms) until `deadline` (epoch ms), then null. */
  async acquire(name: string, limit: number, leaseMs: number, deadline: number): Promise<Lease | null> {
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const lease = await this.tryAcquire(name, limit, leaseMs);
      if (lease || Date.now() + pause > deadline) return lease;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
