import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { bullClientOf, QueueName } from '@gateway/queue';
import { Queue } from 'bullmq';
import { MetricsService } from '../metrics.service';

/**
 * Redis's used memory, maxmemory and maxmemory-policy, from one INFO memory when Prometheus scrapes. With
 * noeviction (which BullMQ needs) a Redis at maxmemory refuses writes: jobs can no longer be added.
 */
@Injectable()
export class RedisMemoryCollector implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    @InjectQueue(QueueName.Embeddings) private readonly queue: Queue,
  ) {}

  onModuleInit(): void {
    this.metrics.onScrape(async () => {
      const client = await bullClientOf(this.queue);
      const info = parseInfo(await client.info('memory'));
      this.metrics.redisMemoryUsed.set(Number(info.used_memory));
      this.metrics.redisMemoryMax.set(Number(info.maxmemory));
      // One series, the policy in force: a changed policy must not leave the old one's series at 1.
      this.metrics.redisMaxmemoryPolicy.reset();
      if (info.maxmemory_policy) this.metrics.redisMaxmemoryPolicy.set({ policy: info.maxmemory_policy }, 1);
    });
  }
}

/** `key:value` lines of an INFO section; `#` lines head the sections. */
export function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}
