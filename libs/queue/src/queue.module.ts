import { AppConfig } from '@gateway/common';
import { BullModule, getSharedConfigToken } from '@nestjs/bullmq';
import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type { QueueOptions } from 'bullmq';
import { QueueName } from './job-contracts';
import { bullConnection, closeBullConnection, RedisModule } from '@gateway/redis';
import { QueueOverview } from './queue-overview.service';

const ALL_QUEUES = Object.values(QueueName).map((name) => ({ name }));

const SERVICES = [QueueOverview];

/** Closes the queues' shared connection when it is a Redis Cluster's, which BullMQ borrows and leaves open. */
@Injectable()
class SharedBullConnection implements OnApplicationShutdown {
  constructor(@Inject(getSharedConfigToken()) private readonly shared: QueueOptions) {}

  async onApplicationShutdown(): Promise<void> {
    await closeBullConnection(this.shared.connection);
  }
}

/** Entries each queue's BullMQ event stream keeps. */
const EVENTS_KEPT = 1_000;

/**
 * BullMQ connection and every queue of the catalogue, with the shared Redis (RedisModule). `role` picks the
 * connection policy (docs/operations.md).
 */
@Module({})
export class QueueModule {
  static forRoot(role: 'producer' | 'worker'): DynamicModule {
    const bull = BullModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        prefix: config.redisKeyPrefix,
        connection: bullConnection(config, role),
        // Nothing reads a queue's event stream (callers are answered on reply channels): a short one is enough for
        // a look with redis-cli, where BullMQ's default of 10,000 entries per queue costs about 1 MB each.
        streams: { events: { maxLen: EVENTS_KEPT } },
      }),
    });
    const queues = BullModule.registerQueue(...ALL_QUEUES);
    return {
      global: true,
      module: QueueModule,
      imports: [RedisModule, bull, queues],
      providers: [...SERVICES, SharedBullConnection],
      exports: [RedisModule, bull, queues, ...SERVICES],
    };
  }
}
