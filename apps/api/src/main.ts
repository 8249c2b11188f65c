import 'reflect-metadata';
import { loadConfig } from '@gateway/common';
import { createApiApp } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApiApp(config);
  await app.listen(config.API_PORT, config.API_HOST);
}

main().catch((error) => {
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
