import { BullRedis } from '@gateway/queue';
import { Job, JobJsonRaw, Processor, Worker, WorkerOptions } from 'bullmq';

type WakeRedis = BullRedis & { moveToActiveOnWake(...keysAndArgs: unknown[]): Promise<unknown[]> };

/**
 * BullMQ's moveToActive script (bullmq 5.x, 11 keys) for a worker that queues it behind its marker wait on the
 * blocking connection (PromptWorker below), where it runs when a job comes, maybe seconds after it was sent.
 * Two additions around BullMQ's own text:
 * - the timestamp (ARGV[2]: the job's processedOn, and which delayed jobs are due) is Redis's clock when it runs;
 * - a job taken from a queue where nothing else waits takes BullMQ's base marker ('0') back, and the answer's fifth
 *   element says so (1). BullMQ sets that marker on every pick-up so that an idle worker looks for more; on a quiet
 *   queue it only sends the worker into one more empty round (a marker wait that returns at once and a moveToActive
 *   that finds nothing). Atomic with the check: a job already waiting keeps the marker, and one added later sets
 *   its own; delayed jobs use marker '1'.
 */
// Not in BullMQ's public exports: the module its Scripts class loads the script from.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { moveToActive } = require('bullmq/dist/cjs/scripts/moveToActive-11') as {
  moveToActive: { content: string; keys: number };
};

/** KEYS of BullMQ's moveToActive used by the additions. */
const WAIT = 'KEYS[1]';
const PRIORITIZED = 'KEYS[3]';
const MARKER = 'KEYS[11]';

export const MOVE_TO_ACTIVE_ON_WAKE = {
  keys: moveToActive.keys,
  lua: `local now = redis.call('TIME')
ARGV[2] = tostring(now[1] * 1000 + math.floor(now[2] / 1000))
local function bullmqMoveToActive()
${moveToActive.content}
end
local fetched = bullmqMoveToActive()
if fetched[1] ~= 0 and redis.call('LLEN', ${WAIT}) == 0 and redis.call('ZCARD', ${PRIORITIZED}) == 0 then
  fetched[5] = redis.call('ZREM', ${MARKER}, '0')
end
return fetched`,
};

/** The parts of BullMQ's Worker this class takes over or reads, private in its types (bullmq 5.x). */
interface WorkerInternals<D, R> {
  /** The last fetch found nothing (or took the marker back): the next one waits for a marker. */
  drained: boolean;
  /** When a delayed job is next due (epoch ms), 0 for none; limitUntil is the rate limit's, unused here. */
  blockUntil: number;
  limitUntil: number;
  /** The marker wait in progress, if any. */
  waiting: Promise<number> | null;
  _getNextJob(
    client: BullRedis,
    bclient: BullRedis,
    token: string,
    options?: { block?: boolean },
  ): Promise<Job<D, R> | undefined>;
  waitForJob(bclient: BullRedis, blockUntil: number): Promise<number>;
  isRateLimited(): boolean;
  updateDelays(limitDelay?: unknown, delayUntil?: unknown): void;
  scripts: {
    moveToActive(
      client: { runCommand(name: string, args: unknown[]): Promise<unknown> },
      token: string,
      name?: string,
    ): Promise<unknown[]>;
  };
}

/**
 * The one BullMQ version PromptWorker was checked against (package.json pins it; bullmq-version.spec.ts fails on any
 * other). Before moving it, re-check against the new version's source what this class relies on: the private
 * members of WorkerInternals (drained, blockUntil, limitUntil, waiting, _getNextJob, waitForJob, isRateLimited,
 * updateDelays, scripts.moveToActive), what run() copies from Worker.run (the stalled-check timer, the lock manager,
 * processJob and its fetch-next on completion, close() waiting for the loop), and the moveToActive script's module
 * and keys (bullmq/dist/cjs/scripts/moveToActive-11, MOVE_TO_ACTIVE_ON_WAKE below). Then run the suite:
 * it runs the core flows with both fetchers (test/e2e/worker-fetch.e2e-spec.ts). WORKER_FETCH=bullmq is the way back.
 */
export const BULLMQ_VERSION_CHECKED = '5.81.5';

/** After a failed fetch (Redis away and the command refused), the loop asks again this much later. */
const FETCH_RETRY_MS = 1_000;
/**
 * A job that came to an empty queue is likely alone: until it has finished, or this long, the loop does not fetch
 * again. A quick job (an embedding, a short chat) is over by then, and fetches its successor itself on completion.
 * Jobs fetched from a backlog are started one after the other without a pause.
 */
const FETCH_PAUSE_MS = 5;

/**
 * A BullMQ Worker whose fetch loop stays out of a quick job's way. BullMQ's own loop fetches until the queue answers
 * empty before it starts any job it fetched, so on a quiet queue each job waited for one more moveToActive round trip
 * and its upstream call competed with two more fetches for the event loop and Redis (bench/README.md, "Where an
 * unloaded request's time goes"). Here a job starts as soon as it is fetched, and after a job that came to an empty
 * queue the next fetch waits until that job has finished or FETCH_PAUSE_MS have passed. Everything else is BullMQ's:
 * getNextJob (marker wake-up, moveToActive and the job's lock), processJob (lock renewal, completion or failure with
 * retries, and the next job fetched on completion), the stalled checker and close(), which waits for this loop as it
 * waits for BullMQ's own. Rate limiting is not supported here. On a drained queue the fetch is queued behind the
 * marker wait on the blocking connection (takeNextJob), which saves the pick-up a round trip; not on a Redis Cluster.
 */
export class PromptWorker<D = unknown, R = unknown> extends Worker<D, R> {
  private active = 0;
  private slotFreed?: () => void;

  constructor(name: string, processor: Processor<D, R>, opts: WorkerOptions) {
    super(name, processor, opts);
    const bullmqGetNextJob = this.internals._getNextJob.bind(this);
    // On a Redis Cluster BullMQ sends the marker wait only after an await of its own (it checks the cluster's
    // connections first), so a fetch queued behind it would run first and find nothing: BullMQ's fetch is used there.
    this.internals._getNextJob = (client, bclient, token, options) =>
      bclient.isCluster
        ? bullmqGetNextJob(client, bclient, token, options)
        : this.takeNextJob(client, bclient, token, options);
  }

  override async run(): Promise<void> {
    if (this.running) throw new Error('Worker is already running.');
    this.running = true;
    try {
      if (this.closing || this.paused) return;
      await this.startStalledCheckTimer();
      if (!this.opts.skipLockRenewal) this.lockManager.start();
      this.mainLoopRunning = this.fetchLoop();
      await this.mainLoopRunning;
    } finally {
      this.running = false;
    }
  }

  private async fetchLoop(): Promise<void> {
    let tokens = 0;
    while (!this.closing && !this.paused) {
      if (this.active >= this.concurrency) {
        await this.slotFreedOrAfter();
        continue;
      }
      const token = `${this.id}:${tokens++}`;
      // A drained queue makes this fetch wait for a marker: a job it gets came to an empty queue.
      const cameToEmptyQueue = this.internals.drained;
      let job: Job<D, R> | undefined;
      try {
        job = await this.getNextJob(token);
      } catch (error) {
        if (!this.closing) {
          this.emit('error', error as Error);
          await new Promise((resolve) => setTimeout(resolve, FETCH_RETRY_MS));
        }
        continue;
      }
      if (!job) continue;
      this.start(job, token);
      if (cameToEmptyQueue) await this.slotFreedOrAfter(FETCH_PAUSE_MS);
    }
    while (this.active > 0) await this.slotFreedOrAfter();
  }

  /** Processes a job in a slot of its own, or in the slot of the job whose completion fetched it. */
  private start(job: Job<D, R>, token: string, inheritedSlot = false): void {
    if (!inheritedSlot) this.active++;
    this.processJob(job, token, () => this.active <= this.concurrency).then(
      (next) => {
        if (next) this.start(next, next.token ?? token, true);
        else this.release();
      },
      (error: Error) => {
        this.release();
        if (!this.closing) this.emit('error', error);
      },
    );
  }

  private release(): void {
    this.active--;
    const wake = this.slotFreed;
    this.slotFreed = undefined;
    wake?.();
  }

  /**
   * BullMQ's _getNextJob, except on a drained queue: there the job's moveToActive goes right behind the marker wait
   * on the blocking connection, so Redis runs it the moment a job's marker ends the wait, without the round trip back
   * to this process and out again (bench/README.md, "Where an unloaded request's time goes"). A job it takes is
   * returned whatever the wait answered; a wait that ends empty takes nothing. When nothing else waited, the script
   * took BullMQ's marker back, and the queue counts as drained again: the loop's next look, while this job runs,
   * waits for a marker (every job added sets one) instead of sending a moveToActive that would find nothing.
   */
  private async takeNextJob(
    client: BullRedis,
    bclient: BullRedis,
    token: string,
    { block = true } = {},
  ): Promise<Job<D, R> | undefined> {
    const internals = this.internals;
    if (this.paused || this.closing) return undefined;
    if (!internals.drained || !block || internals.limitUntil || internals.waiting) {
      return internals.isRateLimited() ? undefined : this.moveToActive(client, token, this.opts.name);
    }
    // waitForJob sends its BZPOPMIN before its first await. When it does not block (a delayed job is already due),
    // the fetch behind it runs at once, as BullMQ's own moveToActive would.
    internals.waiting = internals.waitForJob(bclient, internals.blockUntil);
    const taking = this.moveToActiveOnWake(bclient, token);
    try {
      internals.blockUntil = await internals.waiting;
      const { next, markerTakenBack } = await taking;
      const job = await this.jobFrom(next, token);
      // BullMQ's own flag, as after a fetch that found nothing: the next fetch waits for a marker.
      if (job && markerTakenBack) internals.drained = true;
      return job;
    } finally {
      internals.waiting = null;
    }
  }

  /**
   * Sends the on-wake script with the arguments BullMQ's Scripts.moveToActive builds, on the blocking connection.
   * Never rejects: a connection that failed under the wait took nothing, or took a job whose lock then lapses and
   * which the stalled check hands back, as after any fetch whose answer was lost.
   */
  private async moveToActiveOnWake(
    bclient: BullRedis,
    token: string,
  ): Promise<{ next?: unknown[]; markerTakenBack: boolean }> {
    const wake = bclient as WakeRedis;
    if (!wake.moveToActiveOnWake) {
      wake.defineCommand('moveToActiveOnWake', {
        numberOfKeys: MOVE_TO_ACTIVE_ON_WAKE.keys,
        lua: MOVE_TO_ACTIVE_ON_WAKE.lua,
      });
    }
    let markerTakenBack = false;
    // Scripts.moveToActive shapes the answer into BullMQ's four fields: the fifth is read on the way.
    const runner = {
      runCommand: async (_name: string, keysAndArgs: unknown[]) => {
        const answer = await wake.moveToActiveOnWake(...keysAndArgs);
        markerTakenBack = answer[4] === 1;
        return answer;
      },
    };
    try {
      return { next: await this.internals.scripts.moveToActive(runner, token, this.opts.name), markerTakenBack };
    } catch {
      return { markerTakenBack: false };
    }
  }

  /** What BullMQ's Worker.moveToActive does with the script's answer. */
  private jobFrom(next: unknown[] | undefined, token: string): Promise<Job<D, R> | undefined> | undefined {
    if (!next) return undefined;
    const [jobData, jobId, rateLimitDelay, delayUntil] = next;
    this.internals.updateDelays(rateLimitDelay, delayUntil);
    return this.nextJobFromJobData(jobData as JobJsonRaw, jobId as string, token);
  }

  private get internals(): WorkerInternals<D, R> {
    return this as unknown as WorkerInternals<D, R>;
  }

  /** Resolves once a job gives its slot back, or after `ms` when given. */
  private slotFreedOrAfter(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.slotFreed = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
