import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { QueueDepthCollector } from './queue-depth.collector';

/** /health/live, /health/ready and /metrics, served by the api and by every worker. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController, MetricsController],
  providers: [QueueDepthCollector],
})
export class OperationsModule {}
