import { Global, Module } from '@nestjs/common';
import { ChunkStreams } from './chunk-streams';
import { GatewayRedis } from './gateway-redis.service';
import { IdempotencyStore } from './idempotency-store';
import { LeaseSemaphore } from './lease-semaphore.service';
import { RefusedCalls } from './refused-calls.service';
import { RoutePacer } from './route-pacer.service';

const SERVICES = [GatewayRedis, LeaseSemaphore, RoutePacer, IdempotencyStore, ChunkStreams, RefusedCalls];

/**
 * The shared Redis connection (GatewayRedis, with the deployment's keys) and the services built on plain commands
 * and scripts. Global, and one instance per process however many modules import it (QueueModule does).
 */
@Global()
@Module({ providers: SERVICES, exports: SERVICES })
export class RedisModule {}
