import { AppConfig } from '@gateway/common';
import { createRedis, TaskReply } from '@gateway/queue';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';

/** Publishes task outcomes on the reply channel of the api instance that holds the caller. */
@Injectable()
export class ReplyPublisher implements OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(config: AppConfig) {
    this.redis = createRedis(config, { maxRetriesPerRequest: 3 }, 'reply-publisher');
  }

  async publish(channel: string, reply: TaskReply): Promise<void> {
    await this.redis.publish(channel, JSON.stringify(reply));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
