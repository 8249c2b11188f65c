/**
 * What the chaos bench counts once the gateway has settled, read straight from Redis (BullMQ's queues) and the
 * database (tasks, billing_records, usage_daily): which accepted tasks never got a record, and what was billed or
 * rolled up beyond what was delivered. Fields that are being renamed are read defensively.
 */
// @gateway/queue's services carry decorators, which need the metadata API loaded first.
import 'reflect-metadata';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { MongoClient } from 'mongodb';
import { TASK_QUEUES } from '@gateway/queue';

export interface Stores {
  redisUrl: string;
  redisPrefix: string;
  mongoUrl: string;
}

export interface DrainResult {
  ms: number;
  /** Task jobs still waiting, active or delayed when the wait ended. */
  queued: number;
  /** Accepted task ids without a record when the wait ended. */
  unrecorded: number;
  reason: 'all recorded' | 'nothing moved' | 'time limit';
}

/** What one application (one fault) ended with. */
export interface PhaseLedger {
  /** Accepted task ids without a task record. */
  lost: string[];
  /** Tasks with more billing records than images delivered. */
  billingExcess: { taskId: string; records: number; delivered: number }[];
  /** Per UTC day: roll-up calls and images against the task records and their delivered images. */
  days: { day: string; calls: number; records: number; images: number; delivered: number }[];
  /** Billing records beyond delivered images, plus roll-up calls and images beyond the records'. */
  doubleBilled: number;
  /** Finished task records the roll-ups do not count. */
  rollupMissing: number;
}

interface TaskDoc {
  _id: string;
  appId: string;
  status: string;
  day: string;
  usage?: { images?: unknown } | null;
}

/**
 * Waits until every task queue is empty and every accepted task has its record; or until nothing has moved (queues
 * empty, no new record) for `quietMs`, since nothing is left that could still write one; or `timeoutMs`.
 */
export async function drain(
  stores: Stores,
  taskIds: string[],
  options: { timeoutMs: number; quietMs: number; log: (line: string) => void; signal?: AbortSignal },
): Promise<DrainResult> {
  const started = Date.now();
  const queues = taskQueues(stores);
  const mongo = new MongoClient(stores.mongoUrl, { serverSelectionTimeoutMS: 5000 });
  let queued = -1;
  let recorded = -1;
  let movedAt = Date.now();
  let reason: DrainResult['reason'] = 'time limit';
  try {
    for (let round = 0; Date.now() - started < options.timeoutMs; round++) {
      options.signal?.throwIfAborted();
      const [nowQueued, nowRecorded] = await Promise.all([
        queuedJobs(queues).catch(() => -1),
        countRecorded(mongo, taskIds).catch(() => -1),
      ]);
      if (nowQueued !== 0 || nowRecorded !== recorded) movedAt = Date.now();
      [queued, recorded] = [nowQueued, nowRecorded];
      if (round % 10 === 0)
        options.log(`draining: ${queued} task jobs queued, ${recorded} of ${taskIds.length} accepted tasks recorded`);
      if (queued === 0 && recorded === taskIds.length) {
        reason = 'all recorded';
        break;
      }
      if (queued === 0 && recorded >= 0 && Date.now() - movedAt >= options.quietMs) {
        reason = 'nothing moved';
        break;
      }
      await sleep(1000);
    }
  } finally {
    await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
    await mongo.close().catch(() => undefined);
  }
  return { ms: Date.now() - started, queued, unrecorded: taskIds.length - Math.max(recorded, 0), reason };
}

/** Waits until the applications' roll-up calls stop changing for `quietMs` (at most `timeoutMs`). */
export async function settleRollups(
  mongoUrl: string,
  appIds: string[],
  options: { quietMs: number; timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  const mongo = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5000 });
  try {
    const started = Date.now();
    let last = -1;
    let changedAt = Date.now();
    while (Date.now() - started < options.timeoutMs) {
      options.signal?.throwIfAborted();
      const rollups = await readRollups(mongo, appIds).catch(() => undefined);
      const calls = rollups ? rollups.reduce((sum, rollup) => sum + rollup.calls, 0) : -1;
      if (calls !== last) changedAt = Date.now();
      last = calls;
      if (calls >= 0 && Date.now() - changedAt >= options.quietMs) return;
      await sleep(1000);
    }
  } finally {
    await mongo.close().catch(() => undefined);
  }
}

/**
 * Counts each application's ledger. `phases[i].answeredImages` holds, per task id, the images a client received in
 * a 200 answer: what was delivered when a task has no record to say so.
 */
export async function readLedger(
  mongoUrl: string,
  phases: { appId: string; accepted: Set<string>; answeredImages: Map<string, number> }[],
): Promise<PhaseLedger[]> {
  const mongo = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  try {
    const appIds = phases.map((phase) => phase.appId);
    const db = mongo.db();
    const [tasks, bills, rollups] = await Promise.all([
      db
        .collection<TaskDoc>('tasks')
        .find({ appId: { $in: appIds } }, { projection: { _id: 1, appId: 1, status: 1, day: 1, usage: 1 } })
        .toArray(),
      db
        .collection<{ taskId: string; appId: string }>('billing_records')
        .find({ appId: { $in: appIds } }, { projection: { taskId: 1, appId: 1 } })
        .toArray(),
      readRollups(mongo, appIds),
    ]);
    return phases.map(({ appId, accepted, answeredImages }) => {
      const own = new Map(tasks.filter((task) => task.appId === appId).map((task) => [task._id, task]));
      const lost = [...accepted].filter((taskId) => !own.has(taskId));
      const perTask = new Map<string, number>();
      for (const bill of bills) if (bill.appId === appId) perTask.set(bill.taskId, (perTask.get(bill.taskId) ?? 0) + 1);
      const billingExcess = [...perTask]
        .map(([taskId, records]) => {
          const task = own.get(taskId);
          const delivered = task ? imagesOf(task) : (answeredImages.get(taskId) ?? 0);
          return { taskId, records, delivered };
        })
        .filter(({ records, delivered }) => records > delivered);
      const byDay = new Map<
        string,
        { day: string; calls: number; records: number; images: number; delivered: number }
      >();
      const dayOf = (day: string) => {
        const entry = byDay.get(day) ?? { day, calls: 0, records: 0, images: 0, delivered: 0 };
        byDay.set(day, entry);
        return entry;
      };
      // A cancelled task never ran: the worker, which keeps the roll-ups, never counts it.
      for (const task of own.values()) {
        if (task.status !== 'succeeded' && task.status !== 'failed') continue;
        const entry = dayOf(task.day);
        entry.records++;
        entry.delivered += imagesOf(task);
      }
      for (const rollup of rollups.filter((rollup) => rollup.appId === appId)) {
        const entry = dayOf(rollup.day);
        entry.calls += rollup.calls;
        entry.images += rollup.images;
      }
      const days = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
      const doubleBilled =
        billingExcess.reduce((sum, { records, delivered }) => sum + records - delivered, 0) +
        days.reduce(
          (sum, day) => sum + Math.max(0, day.calls - day.records) + Math.max(0, day.images - day.delivered),
          0,
        );
      const rollupMissing = days.reduce((sum, day) => sum + Math.max(0, day.records - day.calls), 0);
      return { lost, billingExcess, days, doubleBilled, rollupMissing };
    });
  } finally {
    await mongo.close().catch(() => undefined);
  }
}

/** For each task id, its BullMQ job as it stands: state, attempts and the last failure, or that there is none. */
export async function describeJobs(stores: Stores, taskIds: string[]): Promise<Map<string, string>> {
  const queues = taskQueues(stores);
  const described = new Map<string, string>();
  try {
    for (const taskId of taskIds) {
      let found = 'no job in any task queue';
      for (const queue of queues) {
        const job = await queue.getJob(taskId).catch(() => undefined);
        if (!job) continue;
        const state = await job.getState().catch(() => 'unknown');
        const failure = job.failedReason ? `, last failure: ${job.failedReason}` : '';
        found = `job in ${queue.name}: ${state}, ${job.attemptsMade} attempt(s) made${failure}`;
        break;
      }
      described.set(taskId, found);
    }
  } finally {
    await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
  }
  return described;
}

function taskQueues(stores: Stores): Queue[] {
  const url = new URL(stores.redisUrl);
  const queues = TASK_QUEUES.map(
    (name) =>
      new Queue(name, { prefix: stores.redisPrefix, connection: { host: url.hostname, port: Number(url.port) } }),
  );
  queues.forEach((queue) => queue.on('error', () => undefined));
  return queues;
}

async function queuedJobs(queues: Queue[]): Promise<number> {
  const counts = await Promise.all(
    queues.map((queue) => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused')),
  );
  return counts.reduce((sum, count) => sum + Object.values(count).reduce((a, b) => a + b, 0), 0);
}

async function countRecorded(mongo: MongoClient, taskIds: string[]): Promise<number> {
  const tasks = mongo.db().collection<{ _id: string }>('tasks');
  let found = 0;
  for (let start = 0; start < taskIds.length; start += 500) {
    found += await tasks.countDocuments({ _id: { $in: taskIds.slice(start, start + 500) } });
  }
  return found;
}

/** The applications' roll-ups: `_id` is `<app id>|<model>|<day>`, whatever else a document holds. */
async function readRollups(
  mongo: MongoClient,
  appIds: string[],
): Promise<{ appId: string; day: string; calls: number; images: number }[]> {
  const wanted = new Set(appIds);
  const docs = await mongo
    .db()
    .collection<{ _id: string; calls?: unknown; images?: unknown }>('usage_daily')
    .find({}, { projection: { _id: 1, calls: 1, images: 1 } })
    .toArray();
  return docs.flatMap((doc) => {
    const id = String(doc._id);
    const appId = id.slice(0, id.indexOf('|'));
    if (!wanted.has(appId)) return [];
    return [
      { appId, day: id.slice(id.lastIndexOf('|') + 1), calls: Number(doc.calls ?? 0), images: Number(doc.images ?? 0) },
    ];
  });
}

function imagesOf(task: TaskDoc): number {
  return Number(task.usage?.images ?? 0) || 0;
}
