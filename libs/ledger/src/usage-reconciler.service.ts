import { ApplicationsRepository, TaskRecord, TasksRepository, UsageCounters, UsageDailyRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { DeliveredTasks } from './delivered-tasks';
import { UsageLedger } from './usage-ledger';

/** Task records read per listing call. */
const PAGE = 500;
/** How long to wait for the fold lease before giving up (a fold holds it for seconds at most). */
const LEASE_WAIT_MS = 30_000;

/** One roll-up whose counters differ from what the day's task records add up to. */
export interface UsageDifference {
  appId: string;
  model: string;
  recorded: UsageCounters;
  rolledUp: UsageCounters;
}

export interface Reconciliation {
  day: string;
  /** Task records the day has. */
  tasks: number;
  differences: UsageDifference[];
  repaired: boolean;
  /** Why the differences were not repaired: the day still has tasks being delivered or recorded. */
  unsettled?: string;
}

const ZERO: UsageCounters = { calls: 0, errors: 0, promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0 };

/**
 * Recomputes a day's roll-ups from its task records (`gw usage:reconcile`). It holds the fold lease, so no usage is
 * folded meanwhile, folds what is counted first, and repairs only a settled day: no record still pending and no
 * usage of the day counted before or after reading the records. Then the records are every task the roll-ups count,
 * and setting the roll-ups to their sums is exact.
 */
@Injectable()
export class UsageReconciler {
  constructor(
    private readonly ledger: UsageLedger,
    private readonly delivered: DeliveredTasks,
    private readonly applications: ApplicationsRepository,
    private readonly tasks: TasksRepository,
    private readonly usage: UsageDailyRepository,
  ) {}

  async reconcile(day: string, { repair }: { repair: boolean }): Promise<Reconciliation> {
    for (const deadline = Date.now() + LEASE_WAIT_MS; ;) {
      const done = await this.ledger.underLease(() => this.reconcileHeld(day, repair));
      if (done) return done;
      if (Date.now() > deadline) throw new Error('another process held the usage fold lease for 30 s; try again');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  private async reconcileHeld(day: string, repair: boolean): Promise<Reconciliation> {
    await this.ledger.foldHeld();
    const movingBefore = await this.unsettled(day);
    const recorded = await this.recordedUsage(day);
    const moving = movingBefore ?? (await this.unsettled(day));
    const differences: UsageDifference[] = [];
    for (const [appId, models] of recorded.byApp) {
      const rolledUp = new Map(
        (await this.usage.listForApp(appId, day, day)).map(
          ({ model, appId: _app, day: _day, latency: _latency, ...counters }) => [model, counters],
        ),
      );
      for (const model of new Set([...models.keys(), ...rolledUp.keys()])) {
        const sums = models.get(model) ?? ZERO;
        const kept = rolledUp.get(model) ?? ZERO;
        if (differs(sums, kept)) differences.push({ appId, model, recorded: sums, rolledUp: kept });
      }
    }
    const repairable = repair && moving === undefined && differences.length > 0;
    if (repairable)
      await this.usage.replace(
        differences.map(({ appId, model, recorded: counters }) => ({ key: { appId, model, day }, counters })),
      );
    return { day, tasks: recorded.tasks, differences, repaired: repairable, ...(moving ? { unsettled: moving } : {}) };
  }

  /** Why the day is still moving, if it is. */
  private async unsettled(day: string): Promise<string | undefined> {
    const pending = (await this.delivered.pendingDays()).get(day);
    if (pending) return `${pending} task records of ${day} are still to be written`;
    if (await this.ledger.hasUnfolded(day)) return `usage of ${day} was counted while reconciling`;
    return undefined;
  }

  /** Every application's usage on `day` by model, summed from its task records. */
  private async recordedUsage(day: string): Promise<{ tasks: number; byApp: Map<string, Map<string, UsageCounters>> }> {
    const byApp = new Map<string, Map<string, UsageCounters>>();
    let tasks = 0;
    const dayEnd = new Date(`${day}T23:59:59.999Z`);
    for (const app of await this.applications.listCreated()) {
      if (app.createdAt > dayEnd) continue;
      const models = new Map<string, UsageCounters>();
      for (let cursor: string | undefined; ;) {
        const slice = await this.tasks.listForApp(app._id, { from: day, to: day, limit: PAGE, cursor });
        for (const task of slice.data) {
          if (task.status !== 'succeeded' && task.status !== 'failed') continue;
          tasks++;
          const sums = models.get(task.resolvedModel) ?? { ...ZERO };
          addTask(sums, task);
          models.set(task.resolvedModel, sums);
        }
        if (!slice.next) break;
        cursor = slice.next;
      }
      byApp.set(app._id, models);
    }
    return { tasks, byApp };
  }
}

function addTask(sums: UsageCounters, task: TaskRecord): void {
  sums.calls += 1;
  sums.errors += task.status === 'failed' ? 1 : 0;
  sums.promptTokens += task.usage?.prompt_tokens ?? 0;
  sums.completionTokens += task.usage?.completion_tokens ?? 0;
  sums.images += task.usage?.images ?? 0;
  sums.costNanos += task.costNanos ?? 0;
}

function differs(a: UsageCounters, b: UsageCounters): boolean {
  return (Object.keys(ZERO) as (keyof UsageCounters)[]).some((counter) => a[counter] !== b[counter]);
}
