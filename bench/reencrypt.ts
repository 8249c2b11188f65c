/**
 * secrets:reencrypt benchmark: how long moving every stored Secret Key to a new master key takes.
 *
 * Starts Redis and the embedded database (FerretDB over PostgreSQL) in a temp dir, stores --apps applications whose
 * Secret Keys are sealed with an old master key, then runs what `gw secrets:reencrypt` runs (SecretKeyResealer) with
 * MASTER_KEYS=new,old, and once more, when every key is already current. Prints both times.
 *
 * Run: node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/reencrypt.ts [--apps 100000]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getConnectionToken } from '@nestjs/mongoose';
import { Connection } from 'mongoose';
import { ConfigModule, createLogger, loadConfig, LoggerModule, randomBase62 } from '@gateway/common';
import { DbModule } from '@gateway/db';
import { QueueModule } from '@gateway/queue';
import { SecretBox, SecretKeyResealer } from '@gateway/tenancy';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

@Module({})
class ReencryptModule {}

const INSERT_BATCH = 5_000;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { apps: { type: 'string', default: '100000' } } });
  const count = Number(values.apps);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-reencrypt-'));
  fs.chmodSync(dir, 0o711);
  const [redisPort, mongoPort, postgresPort] = [
    await services.freePort(),
    await services.freePort(),
    await services.freePort(),
  ];
  const redis = await services.startRedis({ port: redisPort, dir: path.join(dir, 'redis') });
  const database = await services.startDatabase({ port: mongoPort, postgresPort, dir, durable: false, logDir: dir });
  const [oldKey, newKey] = [crypto.randomBytes(32).toString('hex'), crypto.randomBytes(32).toString('hex')];
  try {
    const config = loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/reencrypt`,
      MASTER_KEYS: `${newKey},${oldKey}`,
      LOCAL_MODELS: 'off',
    });
    const app = await NestFactory.createApplicationContext(
      {
        module: ReencryptModule,
        imports: [
          ConfigModule.forRoot(config),
          LoggerModule.forRoot(createLogger(config.LOG_LEVEL, 'reencrypt-bench')),
          DbModule,
          QueueModule.forCommands(),
        ],
        providers: [SecretKeyResealer],
      },
      { logger: false },
    );
    await app.init();
    const oldBox = new SecretBox([oldKey]);
    const applications = app.get<Connection>(getConnectionToken()).collection('applications');
    const now = new Date();
    const filling = performance.now();
    for (let start = 0; start < count; start += INSERT_BATCH) {
      const docs = Array.from({ length: Math.min(INSERT_BATCH, count - start) }, (_, i) => ({
        _id: `app_${String(start + i).padStart(22, '0')}` as never,
        ownerId: 'user_bench',
        name: `bench ${start + i}`,
        secretKeyEnc: oldBox.seal(`ss-${randomBase62(43)}`),
        status: 'active',
        createdAt: now,
        updatedAt: now,
      }));
      await applications.insertMany(docs, { ordered: false });
    }
    console.log(
      `stored ${count} applications sealed with the old key in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
    );
    const resealer = app.get(SecretKeyResealer);
    for (const pass of ['move', 'already current']) {
      const started = performance.now();
      const report = await resealer.reseal();
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `${pass}: ${count} applications in ${seconds.toFixed(2)} s (${Math.round(count / seconds)}/s): ${report.moved} moved, ${report.alreadyCurrent} already current, ${report.unreadable.length} unreadable`,
      );
    }
    await app.close();
  } finally {
    await services.stopDatabase(database);
    await services.stop(redis);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
