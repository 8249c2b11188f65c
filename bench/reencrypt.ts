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
import { parseArgs } from 'node:util';
import { getConnectionToken } from '@nestjs/mongoose';
import { Connection } from 'mongoose';
import { randomBase62, SecretBox } from '@gateway/common';
import { RedisModule } from '@gateway/redis';
import { SecretKeyResealer } from '@gateway/tenancy';
import { benchConfig, benchContext, withEmbeddedStack } from './embedded-stack';

const INSERT_BATCH = 5_000;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { apps: { type: 'string', default: '100000' } } });
  const count = Number(values.apps);
  const [oldKey, newKey] = [crypto.randomBytes(32).toString('hex'), crypto.randomBytes(32).toString('hex')];
  await withEmbeddedStack('reencrypt', async (stack) => {
    const config = benchConfig(stack, 'reencrypt', { MASTER_KEY: undefined, MASTER_KEYS: `${newKey},${oldKey}` });
    const app = await benchContext(config, 'reencrypt-bench', {
      providers: [SecretKeyResealer],
      queue: RedisModule,
    });
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
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
