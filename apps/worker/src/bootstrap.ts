import { AppConfig, createLogger, PinoNestLogger, SHUTDOWN_SIGNALS } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { WorkerModule } from './worker.module';

/** Builds the worker: BullMQ processors; main.ts starts its operations listener (/health, /metrics) on WORKER_PORT. */
export async function createWorkerApp(config: AppConfig): Promise<NestFastifyApplication> {
  const logger = createLogger(config.LOG_LEVEL, 'worker', config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined);
  for (const warning of config.startupWarnings) logger.warn(warning);
  const app = await NestFactory.create<NestFastifyApplication>(
    WorkerModule.forRoot(config, logger),
    new FastifyAdapter({ logger: false }),
    { logger: new PinoNestLogger(logger) },
  );
  app.get(MetricsService).setService('worker');
  app.get(MetricsService).limitApplicationLabels(config.METRICS_APP_LABELS);
  // Exit 0 once closed, rather than raising the signal again (which main.ts's deadline would take for a second one):
  // the exit code then tells a clean shutdown from a forced one (FORCED_SHUTDOWN_EXIT_CODE).
  app.enableShutdownHooks(SHUTDOWN_SIGNALS, { useProcessExit: true });
  return app;
}
