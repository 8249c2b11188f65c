import { ChaosReport, DEFAULT_FAULTS, formatReport, RECOVERY_TARGET_MS, runChaos } from '../../bench/chaos/run-chaos';

/**
 * The shortened chaos run (bench/chaos/run-chaos.ts; the full one is `npm run bench:chaos`): two api instances and
 * two workers as processes, Redis with AOF and a FerretDB of this suite's own on npm test's PostgreSQL, steady mixed
 * traffic with SDK-style retries, and one cycle of every fault with short windows: about 3 minutes on 2 cores.
 */
describe('the gateway under one fault at a time, with steady traffic and SDK retries', () => {
  const abort = new AbortController();
  let running: Promise<ChaosReport> | undefined;
  let report: ChaosReport | undefined;
  let failure: Error | undefined;

  beforeAll(async () => {
    if (!process.env.TEST_POSTGRES_URL) throw new Error('run the e2e suite with `npm test`, which starts PostgreSQL');
    running = runChaos({
      postgresUrl: process.env.TEST_POSTGRES_URL,
      clients: 6,
      beforeMs: 4000,
      afterMs: 18_000,
      restartDelayMs: 1000,
      databaseDownMs: 10_000,
      upstreamFailMs: 5000,
      upstreamTimeoutMs: 3000,
      upstreamHangMs: 5000,
      syncTimeoutMs: 30_000,
      jobLockMs: 5000,
      drainTimeoutMs: 120_000,
      quietMs: 45_000,
      keepLogs: 'on-miss',
      log: () => undefined,
      signal: abort.signal,
    });
    try {
      report = await running;
      process.stdout.write(formatReport(report));
    } catch (error) {
      failure = error as Error;
    }
  }, 15 * 60_000);

  // The run tears everything down itself; after a timeout or a failure here, the abort makes it do so now.
  afterAll(async () => {
    abort.abort();
    await Promise.race([running?.catch(() => undefined), new Promise((r) => setTimeout(r, 50_000).unref())]);
  }, 60_000);

  it.each(DEFAULT_FAULTS)(
    'leaves no caller hanging, loses no accepted task, bills nothing twice and recovers within 15 s: %s',
    (fault) => {
      if (failure) throw failure;
      const row = report!.rows.find((r) => r.fault === fault)!;
      expect({
        fault,
        hung: row.hung,
        lost: row.lost,
        doubleBilled: row.doubleBilled,
        recoveredWithinTarget: row.recovered && row.recoveryMs < RECOVERY_TARGET_MS,
      }).toEqual({ fault, hung: 0, lost: 0, doubleBilled: 0, recoveredWithinTarget: true });
    },
  );
});
