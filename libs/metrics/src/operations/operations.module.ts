import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { OperationsListener } from './operations-listener';
import { QueueDepthCollector } from './queue-depth.collector';
import { ReadinessCheck } from './readiness-check';
import { ReadinessCollector } from './readiness.collector';
import { RedisMemoryCollector } from './redis-memory.collector';

/**
 * /health/live on the app's own HTTP server (the api's public port); /metrics and /health/ready on the operations
 * listener, which main.ts starts (OperationsListener).
 */
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [QueueDepthCollector, RedisMemoryCollector, ReadinessCheck, ReadinessCollector, OperationsListener],
  exports: [OperationsListener],
})
export class OperationsModule {}
