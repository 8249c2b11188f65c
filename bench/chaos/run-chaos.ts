/**
 * The chaos run behind `npm run bench:chaos` and test/e2e/chaos.e2e-spec.ts: steady mixed traffic through two api
 * instances while faults strike one at a time, each with its own application, then a count of what every fault
 * cost. Per fault:
 *
 * - answers by class, per HTTP attempt (retries included);
 * - hung: attempts with no answer within SYNC_TIMEOUT_MS + 5 s, and async tasks not final that long after their 202;
 * - lost: task ids the gateway handed out (X-Task-Id, or `task_id` in a body) without a task record once the queues
 *   are empty and no record has been written for a while;
 * - double-billed: billing records beyond the images a task delivered, plus roll-up calls (and images) of the
 *   application and day beyond its finished task records (and their images);
 * - recovery: from the fault's end to the start of the last request that met an error (any attempt not 2xx, or an
 *   async task that failed) and did not also run into a later fault; not recovered when errors go on to the end of
 *   the window.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dataUri, solidPng } from '../../test/helpers/images';
import { ChaosDeployment, Role } from './deployment';
import { describeJobs, DrainResult, drain, PhaseLedger, readLedger, settleRollups } from './ledger';
import { AttemptOutcome, Operation, Traffic } from './traffic';

export const RECOVERY_TARGET_MS = 15_000;
/** Errors this close to the end of a fault's window leave its recovery unconfirmed. */
const CONFIRM_MS = 3000;
const IMAGE_MODEL = 'x-image-edit-plus-2025-10-30';

export interface ChaosSettings {
  /** Concurrent clients, each one request at a time. */
  clients: number;
  /** Traffic before each fault, and after it ends. */
  beforeMs: number;
  afterMs: number;
  /** Between killing a process and starting it again. */
  restartDelayMs: number;
  databaseDownMs: number;
  upstreamFailMs: number;
  upstreamHangMs: number;
  /** Upstream latency, uniformly drawn. */
  latencyMs: [number, number];
  syncTimeoutMs: number;
  upstreamTimeoutMs: number;
  jobLockMs: number;
  /** The longest wait for the backlog after traffic stops, and the stillness that ends it earlier. */
  drainTimeoutMs: number;
  quietMs: number;
}

export interface ChaosOptions extends Partial<ChaosSettings> {
  faults?: FaultName[];
  /** PostgreSQL for FerretDB (npm test's); absent: one of its own. */
  postgresUrl?: string;
  /** Keep the logs always (the bench) or only when a target was missed (the e2e suite). */
  keepLogs?: 'always' | 'on-miss';
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export const BENCH_SETTINGS: ChaosSettings = {
  clients: 8,
  beforeMs: 20_000,
  afterMs: 25_000,
  restartDelayMs: 2000,
  databaseDownMs: 30_000,
  upstreamFailMs: 5000,
  upstreamHangMs: 15_000,
  latencyMs: [50, 300],
  syncTimeoutMs: 60_000,
  upstreamTimeoutMs: 10_000,
  jobLockMs: 10_000,
  drainTimeoutMs: 300_000,
  quietMs: 60_000,
};

interface Fault {
  title: string;
  inject(deployment: ChaosDeployment, settings: ChaosSettings, signal?: AbortSignal): Promise<void>;
}

/** SIGKILL the first process of `role`, and start it again after the restart delay. */
async function killAndRestart(
  deployment: ChaosDeployment,
  role: Role,
  settings: ChaosSettings,
  signal?: AbortSignal,
): Promise<void> {
  await deployment.kill(role, 0);
  await sleep(settings.restartDelayMs, undefined, { signal });
  await deployment.restart(role, 0);
}

/** Each fault returns once it is over (the process back, the upstream sane). */
export const FAULTS = {
  // Not run unless asked for: a window of the same traffic with nothing broken, to tell the faults' effects apart.
  none: {
    title: 'nothing (a baseline)',
    async inject() {},
  },
  'worker-kill': {
    title: 'SIGKILL worker-1, then start it again',
    inject: (deployment, settings, signal) => killAndRestart(deployment, 'worker', settings, signal),
  },
  'api-kill': {
    title: 'SIGKILL api-1 (its clients go to api-2), then start it again',
    inject: (deployment, settings, signal) => killAndRestart(deployment, 'api', settings, signal),
  },
  'redis-restart': {
    title: 'stop Redis gracefully, start it again on the same port and AOF',
    async inject(deployment) {
      await deployment.restartRedis();
    },
  },
  'database-stop': {
    title: 'stop the database (FerretDB), start it again',
    async inject(deployment, settings, signal) {
      await deployment.stopDatabase();
      await sleep(settings.databaseDownMs, undefined, { signal });
      await deployment.startDatabase();
    },
  },
  'upstream-500': {
    title: 'every upstream answers 500',
    async inject(deployment, settings, signal) {
      deployment.setUpstreamMode('failing');
      try {
        await sleep(settings.upstreamFailMs, undefined, { signal });
      } finally {
        deployment.setUpstreamMode('normal');
      }
    },
  },
  'upstream-hang': {
    title: 'every upstream hangs past UPSTREAM_TIMEOUT_MS and UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS',
    async inject(deployment, settings, signal) {
      deployment.setUpstreamMode('hanging');
      try {
        await sleep(settings.upstreamHangMs, undefined, { signal });
      } finally {
        deployment.setUpstreamMode('normal');
      }
    },
  },
} satisfies Record<string, Fault>;

export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];
/** The faults a run goes through unless told otherwise, in this order. */
export const DEFAULT_FAULTS: FaultName[] = [
  'worker-kill',
  'api-kill',
  'redis-restart',
  'database-stop',
  'upstream-500',
  'upstream-hang',
];

export type AnswerClass = Exclude<AttemptOutcome, 'hung' | 'aborted'>;

export interface FaultRow {
  fault: FaultName;
  title: string;
  appId: string;
  /** How long the fault lasted: from the kill or stop until the process answered again, or the upstream was sane. */
  faultMs: number;
  requests: number;
  attempts: number;
  answered: Record<AnswerClass, number>;
  hung: number;
  /** Requests whose last answer was an error (after the client's retries), or whose async task failed. */
  failed: number;
  accepted: number;
  lost: number;
  doubleBilled: number;
  /** Finished tasks the roll-ups do not count (reported; not double billing). */
  rollupMissing: number;
  /** Requests that met an error and ended before the fault began. */
  errorsBeforeFault: number;
  recoveryMs: number;
  /** False when errors went on to the end of the window, so recoveryMs is only a lower bound. */
  recovered: boolean;
  /** What was seen for every figure that is not zero: task ids, attempts, log lines. */
  notes: string[];
}

export interface ChaosReport {
  rows: FaultRow[];
  settings: ChaosSettings;
  drain: DrainResult;
  /** Where the logs of every process are; with keepLogs 'on-miss' they are deleted when every target was met. */
  logsDir: string;
  logsKept: boolean;
}

interface Timeline {
  faultStartedAt: number;
  faultEndedAt: number;
  endedAt: number;
}

export async function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  const settings = settingsOf(options);
  const faults = options.faults ?? DEFAULT_FAULTS;
  const log = options.log ?? ((line: string) => process.stderr.write(`[chaos] ${line}\n`));
  const signal = options.signal;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-chaos-'));
  // PostgreSQL runs as its own user when this runs as root, and must be able to reach its data directory.
  fs.chmodSync(dir, 0o711);
  const deployment = new ChaosDeployment({
    dir,
    postgresUrl: options.postgresUrl,
    latencyMs: settings.latencyMs,
    log,
    settings: {
      SYNC_TIMEOUT_MS: settings.syncTimeoutMs,
      UPSTREAM_TIMEOUT_MS: settings.upstreamTimeoutMs,
      // Image generations have their own deadline (300 s by default), which the hang must also outlast.
      UPSTREAM_IMAGE_GENERATION_TIMEOUT_MS: settings.upstreamTimeoutMs,
      JOB_LOCK_MS: settings.jobLockMs,
    },
  });
  let traffic: Traffic | undefined;
  const stopTraffic = () => void traffic?.abort();
  signal?.addEventListener('abort', stopTraffic);
  let keep = options.keepLogs !== 'on-miss';
  try {
    log(`logs in ${deployment.logsDir}`);
    await deployment.start();
    signal?.throwIfAborted();
    const apps = await Promise.all(faults.map((fault) => deployment.createApplication(`chaos ${fault}`)));
    let current = { phase: 0, apiKey: apps[0].apiKey };
    traffic = new Traffic({
      apiUrls: deployment.apiUrls,
      clients: settings.clients,
      hungAfterMs: settings.syncTimeoutMs + 5000,
      current: () => current,
      image: dataUri(await solidPng(64, 48, [40, 120, 200])),
      imageModel: IMAGE_MODEL,
    });
    traffic.start();
    const timelines: Timeline[] = [];
    for (const [phase, fault] of faults.entries()) {
      current = { phase, apiKey: apps[phase].apiKey };
      log(`${fault}: ${settings.beforeMs / 1000} s of traffic (application ${apps[phase].appId})`);
      await sleep(settings.beforeMs, undefined, { signal });
      const faultStartedAt = Date.now();
      log(`${fault}: ${FAULTS[fault].title}`);
      await FAULTS[fault].inject(deployment, settings, signal);
      const faultEndedAt = Date.now();
      log(
        `${fault}: over after ${((faultEndedAt - faultStartedAt) / 1000).toFixed(1)} s; ${settings.afterMs / 1000} s of traffic`,
      );
      await sleep(settings.afterMs, undefined, { signal });
      timelines.push({ faultStartedAt, faultEndedAt, endedAt: Date.now() });
    }
    log('traffic stops; waiting for the requests under way');
    await traffic.finish();
    signal?.throwIfAborted();
    const operations = traffic.operations;
    const accepted = faults.map((_, phase) => acceptedIds(operations.filter((op) => op.phase === phase)));
    const stores = {
      redisUrl: deployment.redisUrl,
      redisPrefix: deployment.redisPrefix,
      mongoUrl: deployment.mongoUrl,
    };
    const drained = await drain(
      stores,
      accepted.flatMap((ids) => [...ids]),
      { timeoutMs: settings.drainTimeoutMs, quietMs: settings.quietMs, log, signal },
    );
    log(`drained in ${(drained.ms / 1000).toFixed(0)} s (${drained.reason})`);
    await settleRollups(
      deployment.mongoUrl,
      apps.map((app) => app.appId),
      { quietMs: 5000, timeoutMs: 60_000, signal },
    );
    const ledgers = await readLedger(
      deployment.mongoUrl,
      faults.map((_, phase) => ({
        appId: apps[phase].appId,
        accepted: accepted[phase],
        answeredImages: answeredImages(operations.filter((op) => op.phase === phase)),
      })),
    );
    const suspects = ledgers.flatMap((ledger) => [...ledger.lost, ...ledger.billingExcess.map(({ taskId }) => taskId)]);
    const hung = operations.filter((op) => op.final === 'hung').flatMap((op) => [...op.taskIds]);
    const evidence = {
      jobs: await describeJobs(stores, [...new Set([...suspects, ...hung])]),
      logs: new LogIndex(deployment.logFiles()),
    };
    const rows = faults.map((fault, phase) =>
      faultRow(
        fault,
        apps[phase].appId,
        timelines[phase],
        timelines,
        operations,
        accepted[phase],
        ledgers[phase],
        evidence,
      ),
    );
    keep ||= rows.some((row) => missedTargets(row).length > 0);
    return { rows, settings, drain: drained, logsDir: deployment.logsDir, logsKept: keep };
  } catch (error) {
    keep = true;
    throw error;
  } finally {
    signal?.removeEventListener('abort', stopTraffic);
    await traffic?.abort();
    await deployment.teardown();
    for (const data of ['redis', 'postgres', 'postgres.password', 'ferretdb'])
      fs.rmSync(path.join(dir, data), { recursive: true, force: true });
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The targets a row misses, in words; empty when it meets them all. */
export function missedTargets(row: FaultRow): string[] {
  return [
    ...(row.hung > 0 ? [`${row.hung} hung`] : []),
    ...(row.lost > 0 ? [`${row.lost} lost`] : []),
    ...(row.doubleBilled > 0 ? [`${row.doubleBilled} double-billed`] : []),
    ...(!row.recovered || row.recoveryMs >= RECOVERY_TARGET_MS ? [`recovery ${recoveryText(row)}`] : []),
  ];
}

export function formatReport(report: ChaosReport): string {
  const s = report.settings;
  const header = [
    'fault',
    'fault s',
    'requests',
    'attempts',
    '200',
    '202',
    '4xx',
    '5xx',
    '504',
    'network',
    'hung',
    'failed',
    'accepted',
    'lost',
    'double-billed',
    'roll-up missing',
    'errors before',
    'recovery s',
    'targets',
  ];
  const cells = report.rows.map((row) => [
    row.fault,
    (row.faultMs / 1000).toFixed(1),
    row.requests,
    row.attempts,
    row.answered['200'],
    row.answered['202'],
    row.answered['4xx'],
    row.answered['5xx'],
    row.answered['504'],
    row.answered.network,
    row.hung,
    row.failed,
    row.accepted,
    row.lost,
    row.doubleBilled,
    row.rollupMissing,
    row.errorsBeforeFault,
    recoveryText(row),
    missedTargets(row).length === 0 ? 'met' : 'MISSED',
  ]);
  const lines = [
    `chaos: 2 api, 2 workers, ${s.clients} clients; SYNC_TIMEOUT_MS ${s.syncTimeoutMs}, UPSTREAM_TIMEOUT_MS ${s.upstreamTimeoutMs}, JOB_LOCK_MS ${s.jobLockMs}; upstream latency ${s.latencyMs[0]}–${s.latencyMs[1]} ms; ${s.beforeMs / 1000} s before and ${s.afterMs / 1000} s after each fault`,
    `targets: 0 hung, 0 lost, 0 double-billed, recovery under ${RECOVERY_TARGET_MS / 1000} s`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...cells.map((row) => `| ${row.join(' | ')} |`),
    '',
    `backlog after traffic: drained in ${(report.drain.ms / 1000).toFixed(0)} s (${report.drain.reason}); ${report.drain.queued} task jobs left, ${report.drain.unrecorded} accepted tasks without a record`,
  ];
  for (const row of report.rows.filter((r) => r.notes.length > 0)) {
    lines.push('', `${row.fault} (application ${row.appId}):`, ...row.notes.map((note) => `  ${note}`));
  }
  lines.push('', report.logsKept ? `logs: ${report.logsDir}` : 'logs: deleted, every target was met');
  return `${lines.join('\n')}\n`;
}

function recoveryText(row: FaultRow): string {
  return `${row.recovered ? '' : '>'}${(row.recoveryMs / 1000).toFixed(1)}`;
}

function faultRow(
  fault: FaultName,
  appId: string,
  timeline: Timeline,
  timelines: Timeline[],
  everyOperation: Operation[],
  accepted: Set<string>,
  ledger: PhaseLedger,
  evidence: { jobs: Map<string, string>; logs: LogIndex },
): FaultRow {
  const about = (taskId: string) => [
    `    ${taskId}: ${evidence.jobs.get(taskId) ?? 'job not looked up'}`,
    ...evidence.logs.about(taskId),
  ];
  const phase = timelines.indexOf(timeline);
  const operations = everyOperation.filter((op) => op.phase === phase);
  const attempts = operations.flatMap((op) => op.attempts);
  const answered: Record<AnswerClass, number> = { '200': 0, '202': 0, '4xx': 0, '5xx': 0, '504': 0, network: 0 };
  for (const attempt of attempts) if (attempt.outcome in answered) answered[attempt.outcome as AnswerClass]++;
  const hungAttempts = attempts.filter((attempt) => attempt.outcome === 'hung').length;
  const hungTasks = operations.filter((op) => op.polls && op.final === 'hung');
  const failed = operations.filter((op) => op.final !== 'ok');
  const errored = operations.filter(metError);
  const { faultStartedAt, faultEndedAt, endedAt } = timeline;
  const at = (time: number) => `${time >= faultStartedAt ? '+' : ''}${((time - faultStartedAt) / 1000).toFixed(1)} s`;
  const describe = (op: Operation) => {
    const tries = op.attempts.map(
      (a) =>
        `api-${a.api + 1} ${at(a.startedAt)} ${a.outcome}${a.code ? ` ${a.code}` : ''}${a.taskId ? ` ${a.taskId}` : ''}`,
    );
    const polls = op.polls ? `; polls ${JSON.stringify(op.polls.statuses)}` : '';
    return `request #${op.id} (${op.kind}, client ${op.client}) from ${at(op.startedAt)}: ${tries.join(', ')}${polls}${op.note ? `; ${op.note}` : ''}`;
  };
  const laterFaults = timelines.slice(phase + 1);
  const overlapsLaterFault = (op: Operation) =>
    laterFaults.some((t) => op.startedAt <= t.faultEndedAt && (op.endedAt ?? Infinity) >= t.faultStartedAt);
  const before = errored.filter((op) => (op.endedAt ?? Infinity) < faultStartedAt);
  const after = errored.filter((op) => op.startedAt > faultEndedAt);
  const afterOwn = after.filter((op) => !overlapsLaterFault(op));
  const lastError = Math.max(faultEndedAt, ...afterOwn.map((op) => op.startedAt));
  const recovered =
    endedAt - lastError >= CONFIRM_MS && operations.some((op) => op.startedAt > lastError && op.final === 'ok');
  const recoveryMs = recovered ? lastError - faultEndedAt : endedAt - faultEndedAt;

  const notes: string[] = [];
  const byTask = new Map(operations.flatMap((op) => [...op.taskIds].map((id) => [id, op] as const)));
  const lost = new Set(ledger.lost);
  const lostOperations = [...new Set(ledger.lost.map((taskId) => byTask.get(taskId)))];
  // A task id that only ever came with an error answer: the api named a task whose job may never have existed.
  const onlyInErrors = ledger.lost.filter((taskId) =>
    operations.every((op) =>
      op.attempts.every((a) => a.taskId !== taskId || (a.outcome !== '200' && a.outcome !== '202')),
    ),
  );
  if (onlyInErrors.length > 0)
    notes.push(
      `${onlyInErrors.length} of ${lost.size} lost task ids came only with error answers (never with a 200 or 202)`,
    );
  for (const op of lostOperations.slice(0, 10)) {
    const ids = op ? [...op.taskIds].filter((taskId) => lost.has(taskId)) : ledger.lost.filter((id) => !byTask.has(id));
    notes.push(`lost ${ids.join(', ')}: ${op ? describe(op) : 'named by no request'}`, ...ids.flatMap(about));
  }
  if (lostOperations.length > 10) notes.push(`… and the lost tasks of ${lostOperations.length - 10} more requests`);
  for (const { taskId, records, delivered } of ledger.billingExcess.slice(0, 10)) {
    const op = byTask.get(taskId);
    notes.push(
      `billed ${records} images for ${taskId}, delivered ${delivered}${op ? `: ${describe(op)}` : ''}`,
      ...about(taskId),
    );
  }
  for (const day of ledger.days) {
    if (day.calls > day.records || day.images > day.delivered)
      notes.push(
        `roll-up ${day.day}: ${day.calls} calls for ${day.records} finished task records, ${day.images} images for ${day.delivered} delivered${ledger.lost.length > 0 ? `; the application also has ${ledger.lost.length} lost task(s), which a worker may have counted without recording them` : ''}`,
      );
    if (day.calls < day.records)
      notes.push(
        `roll-up ${day.day}: ${day.calls} calls for ${day.records} finished task records (missing ${day.records - day.calls})`,
      );
  }
  const hungOperations = operations.filter(
    (op) => op.attempts.some((a) => a.outcome === 'hung') || hungTasks.includes(op),
  );
  for (const op of hungOperations.slice(0, 10)) notes.push(`hung: ${describe(op)}`, ...[...op.taskIds].flatMap(about));
  for (const op of before.slice(0, 5)) notes.push(`error before the fault: ${describe(op)}`);
  for (const op of afterOwn.slice(-10)) notes.push(`error after the fault ended: ${describe(op)}`);
  if (after.length > afterOwn.length)
    notes.push(
      `${after.length - afterOwn.length} request(s) that also ran into a later fault are not counted for recovery`,
    );

  return {
    fault,
    title: FAULTS[fault].title,
    appId,
    faultMs: faultEndedAt - faultStartedAt,
    requests: operations.length,
    attempts: attempts.length,
    answered,
    hung: hungAttempts + hungTasks.length,
    failed: failed.length,
    accepted: accepted.size,
    lost: ledger.lost.length,
    doubleBilled: ledger.doubleBilled,
    rollupMissing: ledger.rollupMissing,
    errorsBeforeFault: before.length,
    recoveryMs,
    recovered,
    notes,
  };
}

/** Any attempt that was not answered 2xx, or a request that did not end well. */
function metError(op: Operation): boolean {
  return op.final !== 'ok' || op.attempts.some((attempt) => attempt.outcome !== '200' && attempt.outcome !== '202');
}

function acceptedIds(operations: Operation[]): Set<string> {
  return new Set(operations.flatMap((op) => [...op.taskIds]));
}

function answeredImages(operations: Operation[]): Map<string, number> {
  const images = new Map<string, number>();
  for (const op of operations) {
    const answered = op.attempts.find((a) => a.outcome === '200')?.taskId;
    if (answered && op.images !== undefined) images.set(answered, op.images);
  }
  return images;
}

/** The log lines of every process that name a task id. */
class LogIndex {
  private readonly texts: [string, string[]][];

  constructor(files: Record<string, string>) {
    this.texts = Object.entries(files).map(([name, file]) => [name, fs.readFileSync(file, 'utf8').split('\n')]);
  }

  about(taskId: string, perFile = 4): string[] {
    return this.texts.flatMap(([name, lines]) => {
      const found = lines.filter((line) => line.includes(taskId));
      if (found.length === 0) return [];
      return [
        `    ${name}.log: ${found.length} line(s)`,
        ...found.slice(0, perFile).map((line) => `      ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`),
      ];
    });
  }
}

/** The bench's settings with the options' on top; the upstream hangs 5 s past its timeout unless told otherwise. */
function settingsOf(options: ChaosOptions): ChaosSettings {
  const given = Object.fromEntries(
    Object.keys(BENCH_SETTINGS).flatMap((name) => {
      const value = options[name as keyof ChaosSettings];
      return value === undefined ? [] : [[name, value]];
    }),
  ) as Partial<ChaosSettings>;
  const upstreamTimeoutMs = given.upstreamTimeoutMs ?? BENCH_SETTINGS.upstreamTimeoutMs;
  return { ...BENCH_SETTINGS, upstreamHangMs: upstreamTimeoutMs + 5000, ...given };
}
