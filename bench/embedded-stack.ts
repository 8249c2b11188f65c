/**
 * What the benches that run the gateway's modules in their own process share: Redis and the embedded database
 * (FerretDB over PostgreSQL) on free ports in a temporary directory, the config those modules run with, and a Nest
 * context of the config, logger, database and queue modules plus the bench's own.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamicModule, INestApplicationContext, Module, Provider, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, ConfigModule, createLogger, EnvSource, loadConfig, LoggerModule } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { QueueModule } from '@gateway/queue';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

export interface EmbeddedStack {
  redisUrl: string;
  /** The database's MongoDB URL for one database name. */
  mongoUri(database: string): string;
  /** PostgreSQL under FerretDB, for VACUUM, CHECKPOINT and sizes. */
  postgresUrl: string;
}

/** Runs `bench` against a fresh Redis and embedded database, and removes both (and their directory) after it. */
export async function withEmbeddedStack(name: string, bench: (stack: EmbeddedStack) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `gw-${name}-`));
  // PostgreSQL runs as its own user when this runs as root, and must be able to reach its data directory.
  fs.chmodSync(dir, 0o711);
  const [redisPort, mongoPort, postgresPort] = [
    await services.freePort(),
    await services.freePort(),
    await services.freePort(),
  ];
  const redis = await services.startRedis({ port: redisPort, dir: path.join(dir, 'redis') });
  const database = await services.startDatabase({ port: mongoPort, postgresPort, dir, durable: false, logDir: dir });
  try {
    await bench({
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      mongoUri: (name) => `mongodb://127.0.0.1:${mongoPort}/${name}`,
      postgresUrl: database.postgresUrl,
    });
  } finally {
    await services.stopDatabase(database);
    await services.stop(redis);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The config of a bench's in-process modules: production, warnings only, a random master key, no local models. */
export function benchConfig(stack: EmbeddedStack, database: string, env: EnvSource = {}): AppConfig {
  return loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    REDIS_URL: stack.redisUrl,
    MONGODB_URI: stack.mongoUri(database),
    MASTER_KEY: crypto.randomBytes(32).toString('hex'),
    LOCAL_MODELS: 'off',
    ...env,
  });
}

@Module({})
class BenchModule {}

/**
 * An initialised context of the config, logger, database and queue modules (a producer's, unless `queue` says), with
 * `imports` and `providers`.
 */
export async function benchContext(
  config: AppConfig,
  name: string,
  extra: { imports?: (Type | DynamicModule)[]; providers?: Provider[]; queue?: Type | DynamicModule } = {},
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(
    {
      module: BenchModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(createLogger(config.LOG_LEVEL, name)),
        DbModule,
        extra.queue ?? QueueModule.forRoot('producer'),
        ...(extra.imports ?? []),
      ],
      providers: extra.providers ?? [],
    },
    { logger: false },
  );
  await app.init();
  return app;
}
