import { InjectQueue } from '@nestjs/bullmq';
import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, MongooseHealthIndicator } from '@nestjs/terminus';
import { QueueName } from '@gateway/queue';
import { Queue } from 'bullmq';
import type Redis from 'ioredis';

/** Liveness says the process answers; readiness that Redis and MongoDB do too (docs/operations.md). */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mongo: MongooseHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectQueue(QueueName.Embeddings) private readonly queue: Queue,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.mongo.pingCheck('mongodb', { timeout: 2000 }), () => this.redis()]);
  }

  private async redis() {
    const indicator = this.indicators.check('redis');
    try {
      const client = (await this.queue.client) as unknown as Redis;
      await client.ping();
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }
}
