import 'reflect-metadata';
import { createLogger, loadConfig } from '@gateway/common';
import { NestFactory } from '@nestjs/core';
import { CliCommands, CommandFailed, UsageError, USAGE } from './cli.commands';
import { CliModule } from './cli.module';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = loadConfig();
  const logger = createLogger('warn', 'cli');
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, logger), { logger: ['error'] });
  try {
    const output = await app.get(CliCommands).run(argv);
    if (output) process.stdout.write(`${output}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CommandFailed) {
      process.stdout.write(`${error.output}\n`);
      return 1;
    }
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  } finally {
    await app.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`gw: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
