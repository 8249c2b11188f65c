import 'reflect-metadata';
import { armShutdownDeadline, loadConfig, LOGGER, watchShutdownSteps } from '@gateway/common';
import { OperationsListener } from '@gateway/metrics';
import { Logger } from 'pino';
import { createApiApp } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApiApp(config);
  // Here, not in createApiApp: the deadline ends the process, and the e2e suites run several apps in theirs.
  armShutdownDeadline({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger: app.get<Logger>(LOGGER),
    stillClosing: watchShutdownSteps(app),
  });
  await app.listen(config.API_PORT, config.API_HOST);
  // /metrics and /health/ready: never on the public port (docs/operations.md).
  await app.get(OperationsListener).listen(config.METRICS_PORT, config.METRICS_HOST);
}

main().catch((error) => {
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
