import { AppConfig } from '@gateway/common';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { closeRedis, createRedis } from './redis-connections';

/**
 * The process's one connection for plain commands and scripts (outcomes, leases, limits, nonces, sessions);
 * BullMQ and the reply subscription keep their own, as blocking and subscribed connections must.
 * Closed in the last shutdown phase, after workers have drained in beforeApplicationShutdown.
 */
@Injectable()
export class GatewayRedis implements OnApplicationShutdown {
  readonly client: Redis;

  constructor(config: AppConfig) {
    this.client = createRedis(config, { maxRetriesPerRequest: 2 }, 'commands');
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.client);
  }
}
