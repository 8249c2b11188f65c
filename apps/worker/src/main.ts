import 'reflect-metadata';
import { loadConfig } from '@gateway/common';
import { createWorkerApp } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createWorkerApp(config);
  await app.listen(config.WORKER_PORT, config.WORKER_HOST);
}

main().catch((error) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
