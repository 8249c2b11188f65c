import { AppConfig, createLogger, PinoNestLogger } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { WorkerModule } from './worker.module';

/** Builds the worker: BullMQ processors plus a small HTTP server for /health and /metrics. */
export async function createWorkerApp(config: AppConfig): Promise<NestFastifyApplication> {
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  for (const warning of config.startupWarnings) logger.warn(warning);
  const app = await NestFactory.create<NestFastifyApplication>(
    WorkerModule.forRoot(config, logger),
    new FastifyAdapter({ logger: false }),
    { logger: new PinoNestLogger(logger) },
  );
  app.get(MetricsService).setService('worker');
  app.enableShutdownHooks();
  return app;
}
