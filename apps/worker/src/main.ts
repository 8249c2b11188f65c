import 'reflect-metadata';
import { armShutdownDeadline, loadConfig, LOGGER, watchShutdownSteps } from '@gateway/common';
import { OperationsListener } from '@gateway/metrics';
import { Logger } from 'pino';
import { createWorkerApp } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createWorkerApp(config);
  // Here, not in createWorkerApp: the deadline ends the process, and the e2e suites run several apps in theirs.
  armShutdownDeadline({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger: app.get<Logger>(LOGGER),
    stillClosing: watchShutdownSteps(app),
  });
  // The worker has no public surface: its one listener is the operations listener, as the api's METRICS_PORT.
  await app.init();
  await app.get(OperationsListener).listen(config.WORKER_PORT, config.WORKER_HOST);
}

main().catch((error) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
