import { CatalogService, Pricing, routeKey } from '@gateway/catalog';
import { USAGE_FIGURES, UpstreamUsage } from '@gateway/contracts';
import { ApplicationsRepository, TaskRecord, TasksRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';

/** Task records read per listing call (slices of 2,500 measured no faster: bench/README.md). */
const PAGE = 500;
/** Applications read at once: each listing is a few indexed page reads, so a handful keeps the database busy. */
const APPS_AT_ONCE = 8;

/** Every figure of one side, summed over the day; a reported figure no answer stated stays absent. */
export type DriftFigures = UpstreamUsage;

/** One model's route on one day: what the gateway billed, what the upstream stated, and what it was never paid for. */
export interface UpstreamDrift {
  model: string;
  route: string;
  /** Tasks of the day that used the route. */
  tasks: number;
  computed: Required<UpstreamUsage>;
  reported: DriftFigures;
  /**
   * Calls that ended `spent`: the upstream may have done (and billed) the work, the caller got nothing from it.
   * Cost at the route's image price, one image a call; a token model's spent call has no count to price.
   */
  spentNotDelivered: { calls: number; costNanos: number };
}

export interface UpstreamReconciliation {
  day: string;
  /** Task records the day has. */
  tasks: number;
  routes: UpstreamDrift[];
}

/**
 * What the gateway computed against what upstreams reported, per model and route over one UTC day
 * (`gw usage:reconcile --upstream`), from the task records' `metered` routes and upstream attempts
 * (docs/operations.md, "Upstream reconciliation"). It reads the day's records through the feed pages, one indexed
 * read per page of 25, as the usage reconciliation does, and changes nothing.
 */
@Injectable()
export class UpstreamReconciler {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly tasks: TasksRepository,
    private readonly catalog: CatalogService,
    private readonly pricing: Pricing,
  ) {}

  async reconcile(day: string): Promise<UpstreamReconciliation> {
    const drift = new Map<string, UpstreamDrift>();
    let tasks = 0;
    const dayEnd = new Date(`${day}T23:59:59.999Z`);
    const apps = (await this.applications.listCreated()).filter((app) => app.createdAt <= dayEnd);
    let next = 0;
    const lane = async () => {
      while (next < apps.length) {
        const appId = apps[next++]._id;
        for (let cursor: string | undefined; ;) {
          const slice = await this.tasks.listForApp(appId, { from: day, to: day, limit: PAGE, cursor });
          for (const task of slice.data) {
            tasks++;
            this.add(drift, task);
          }
          if (!slice.next) break;
          cursor = slice.next;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(APPS_AT_ONCE, apps.length) }, lane));
    const routes = [...drift.values()].sort((a, b) => a.model.localeCompare(b.model) || a.route.localeCompare(b.route));
    return { day, tasks, routes };
  }

  private add(drift: Map<string, UpstreamDrift>, task: TaskRecord): void {
    const model = task.resolvedModel;
    const used = new Set<string>();
    const entry = (route: string) => {
      const key = `${model}|${route}`;
      let row = drift.get(key);
      if (!row) {
        row = {
          model,
          route,
          tasks: 0,
          computed: { promptTokens: 0, completionTokens: 0, images: 0, costNanos: 0 },
          reported: {},
          spentNotDelivered: { calls: 0, costNanos: 0 },
        };
        drift.set(key, row);
      }
      if (!used.has(route)) row.tasks++;
      used.add(route);
      return row;
    };
    for (const { route, computed, reported } of task.metered ?? []) {
      const row = entry(route);
      for (const figure of USAGE_FIGURES) row.computed[figure] += computed[figure] ?? 0;
      for (const figure of USAGE_FIGURES)
        if (reported?.[figure] !== undefined) row.reported[figure] = (row.reported[figure] ?? 0) + reported[figure];
    }
    for (const attempt of task.upstream ?? []) {
      if (attempt.outcome !== 'spent') continue;
      const row = entry(attempt.route);
      row.spentNotDelivered.calls++;
      row.spentNotDelivered.costNanos += this.spentPrice(model, attempt.route);
    }
  }

  /**
   * A spent call at the price of the route it was spent on (its own `price:`, else the model's), as a delivered
   * image of that route is billed: one image for an image model; nothing countable for a token model.
   */
  private spentPrice(model: string, route: string): number {
    const spec = this.catalog.find(model);
    if (!spec) return 0;
    return this.pricing.imageUnitPriceNanos(
      spec,
      spec.routes.find((candidate) => routeKey(candidate) === route),
    );
  }
}
