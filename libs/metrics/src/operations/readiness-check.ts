import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  MongooseHealthIndicator,
} from '@nestjs/terminus';
import { bullClientOf, QueueName } from '@gateway/queue';
import { Queue } from 'bullmq';

/** Readiness: MongoDB and Redis answer (docs/operations.md). */
@Injectable()
export class ReadinessCheck {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mongo: MongooseHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectQueue(QueueName.Embeddings) private readonly queue: Queue,
  ) {}

  /** 200 with Terminus's report when every check is up, 503 with it otherwise. */
  async run(): Promise<{ status: number; report: HealthCheckResult }> {
    try {
      const report = await this.health.check([
        () => this.mongo.pingCheck('mongodb', { timeout: 2000 }),
        () => this.redis(),
      ]);
      return { status: 200, report };
    } catch (error) {
      if (error instanceof ServiceUnavailableException)
        return { status: 503, report: error.getResponse() as HealthCheckResult };
      throw error;
    }
  }

  private async redis() {
    const indicator = this.indicators.check('redis');
    try {
      const client = await bullClientOf(this.queue);
      await client.ping();
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }
}
