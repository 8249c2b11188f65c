import { AppConfig, LOGGER } from '@gateway/common';
import { BullModule, getQueueToken, getSharedConfigToken } from '@nestjs/bullmq';
import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue, QueueOptions } from 'bullmq';
import { Logger } from 'pino';
import { QueueName } from './job-contracts';
import { bullConnection, closeBullConnection, RedisModule, reportConnectionErrors } from '@gateway/redis';
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

/** Each queue's connection errors in the log (reportConnectionErrors) rather than on stderr, where BullMQ prints them. */
@Injectable()
class QueueConnectionErrors implements OnModuleInit {
  constructor(
    private readonly modules: ModuleRef,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    for (const { name } of ALL_QUEUES) {
      const queue = this.modules.get<Queue>(getQueueToken(name), { strict: false });
      reportConnectionErrors(queue, `queue:${name}`, this.logger);
    }
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
      providers: [...SERVICES, SharedBullConnection, QueueConnectionErrors],
      exports: [RedisModule, bull, queues, ...SERVICES],
    };
  }
}
