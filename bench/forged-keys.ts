/**
 * Forged API keys benchmark: what a burst of forged keys costs the gateway and its real callers. Starts Redis, the
 * embedded database and the api, creates an application, then measures GET /v1/models with the real key alone and
 * again during a burst of forged keys: random ones (no valid checksum) and ones carrying the public CRC32 checksum of
 * the keys issued before keyed checksums, from one address and from a new address each. Reports the real key's
 * latency (median, p99), the burst's rate and answers, and how many database look-ups the burst made.
 * Asserts nothing.
 *
 * Run: npm run bench:forged-keys [-- --forged 10000 --concurrency 100]
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { crc32 } from 'node:zlib';
import { BASE62, randomBase62 } from '@gateway/common';
import { ApiKeysRepository } from '@gateway/db';
import { CredentialsService } from '@gateway/tenancy';
import { createApiApp } from '../apps/api/src/bootstrap';
import { benchConfig, withEmbeddedStack } from './embedded-stack';

const { values } = parseArgs({
  options: { forged: { type: 'string', default: '10000' }, concurrency: { type: 'string', default: '100' } },
});
const FORGED = Number(values.forged);
const CONCURRENCY = Number(values.concurrency);
const REAL_CALLS = 400;

/** A key in the form issued before keyed checksums: anyone can compute its CRC32. */
function crcFormKey(): string {
  const body = randomBase62(43);
  let value = crc32(body);
  let checksum = '';
  for (let i = 0; i < 6; i++) {
    checksum = BASE62[value % 62] + checksum;
    value = Math.floor(value / 62);
  }
  return `sk-${body}${checksum}`;
}

type Forgery = { name: string; key: () => string; address: (i: number) => string };

const FORGERIES: Forgery[] = [
  { name: 'random checksum, one address', key: () => `sk-${randomBase62(49)}`, address: () => '203.0.113.1' },
  { name: 'CRC32 checksum, one address', key: crcFormKey, address: () => '203.0.113.2' },
  {
    name: 'CRC32 checksum, a new address each',
    key: crcFormKey,
    address: (i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function main(): Promise<void> {
  await withEmbeddedStack('forged-keys-bench', async (stack) => {
    const api = await createApiApp(benchConfig(stack, 'forged-keys-bench', { TRUSTED_PROXIES: '127.0.0.1' }));
    try {
      await api.listen(0, '127.0.0.1');
      const url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
      const { apiKey } = await api.get(CredentialsService).createApplication({
        name: 'real',
        description: '',
        type: 'backend',
        usageScenario: '',
        expectedVolume: 0,
        scope: { capabilities: [], models: [] },
        dailyCallLimit: 0,
        concurrencyLimit: 0,
        requestsPerMinute: 0,
        tokenQuota: 0,
        ipWhitelist: [],
      });
      const repository = api.get(ApiKeysRepository);
      let lookUps = 0;
      const findByHash = repository.findByHash.bind(repository);
      repository.findByHash = (hash: string) => {
        lookUps++;
        return findByHash(hash);
      };
      const call = (key: string, address: string) =>
        fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': address } }).then(
          async (response) => {
            await response.arrayBuffer();
            return response.status;
          },
        );

      /** The real key's latencies over REAL_CALLS calls, four at a time, while `during` runs. */
      async function realKeyLatency(during: Promise<unknown> = Promise.resolve()) {
        const latencies: number[] = [];
        let next = 0;
        await Promise.all([
          during,
          ...Array.from({ length: 4 }, async () => {
            while (next++ < REAL_CALLS) {
              const started = performance.now();
              if ((await call(apiKey, '198.51.100.1')) !== 200) throw new Error('the real key was refused');
              latencies.push(performance.now() - started);
            }
          }),
        ]);
        latencies.sort((a, b) => a - b);
        return `real key median ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`;
      }

      // Warm up the real key and the server's handling of a burst (the first burst ran slowest whatever its keys).
      await realKeyLatency();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, i) => {
          for (let n = 0; n < 20; n++) await call(`sk-${randomBase62(49)}`, `198.51.100.${i}`);
        }),
      );
      console.log(`alone: ${await realKeyLatency()}`);
      for (const forgery of FORGERIES) {
        lookUps = 0;
        const answers: Record<number, number> = {};
        let sent = 0;
        const started = performance.now();
        const burst = Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (sent < FORGED) {
              const i = sent++;
              const status = await call(forgery.key(), forgery.address(i));
              answers[status] = (answers[status] ?? 0) + 1;
            }
          }),
        );
        const latency = await realKeyLatency(burst);
        const seconds = (performance.now() - started) / 1000;
        console.log(
          `${FORGED} forged keys, ${forgery.name}: ${(FORGED / seconds).toFixed(0)}/s, answers ${JSON.stringify(answers)}, ` +
            `${lookUps} database look-ups; ${latency}`,
        );
      }
    } finally {
      await api.close();
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
