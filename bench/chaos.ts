/**
 * Chaos benchmark: does the gateway lose or bill twice anything it accepted while its processes, Redis, the database
 * and the upstreams fail one at a time under steady traffic? Runs bench/chaos/run-chaos.ts with the full windows
 * (20 s of traffic before each fault and 25 s after it, the database away for 30 s), prints one row per fault and
 * what was seen for every figure that is not zero. Targets: 0 hung, 0 lost, 0 double-billed, recovery under 15 s;
 * a row that misses one says MISSED, and the shortened run in test/e2e/chaos.e2e-spec.ts fails on it. The logs of
 * every process stay in the directory it prints.
 *
 * Run: npm run bench:chaos [-- --faults worker-kill,database-stop --clients 8]; `none` is a window without a fault.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_FAULTS, FAULT_NAMES, FaultName, formatReport, runChaos } from './chaos/run-chaos';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../scripts/services.js');

const { values } = parseArgs({
  options: {
    faults: { type: 'string', default: DEFAULT_FAULTS.join(',') },
    clients: { type: 'string', default: '8' },
  },
  strict: true,
});

async function main(): Promise<void> {
  const faults = values.faults.split(',').map((name) => name.trim()) as FaultName[];
  const unknown = faults.filter((name) => !FAULT_NAMES.includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown fault ${unknown.join(', ')}; the faults are ${FAULT_NAMES.join(', ')}`);
  const clients = Number(values.clients);
  if (!Number.isInteger(clients) || clients < 2) throw new Error('--clients must be a whole number ≥ 2');
  services.ensureBuilt(path.resolve(__dirname, '..'));
  const abort = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => abort.abort());
  const report = await runChaos({ faults, clients, keepLogs: 'always', signal: abort.signal });
  process.stdout.write(formatReport(report));
}

main().then(
  () => process.exit(0),
  (error) => {
    if ((error as Error)?.name === 'AbortError') {
      process.stderr.write('bench:chaos: interrupted; everything it started is stopped\n');
      process.exit(130);
    }
    process.stderr.write(`bench:chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
