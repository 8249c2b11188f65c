import { Counter } from 'prom-client';

/** The `app` label every application past the process's limit shares. */
export const OTHER_APPLICATIONS = 'other';

/** Applications that get an `app` label of their own in one process, unless METRICS_APP_LABELS says otherwise. */
export const DEFAULT_APPLICATION_LABELS = 100;

/**
 * Which applications have an `app` label of their own in this process: the first `limit` seen, in arrival order;
 * the rest are counted under app="other". Shared by every per-application family, so one application has the same
 * label in all of them and the series count stays at most (limit + 1) × the other labels' values.
 */
export class ApplicationLabels {
  private readonly labelled = new Set<string>();

  constructor(private limit = DEFAULT_APPLICATION_LABELS) {}

  setLimit(limit: number): void {
    this.limit = limit;
  }

  labelOf(appId: string): string {
    if (this.labelled.has(appId)) return appId;
    if (this.labelled.size >= this.limit) return OTHER_APPLICATIONS;
    this.labelled.add(appId);
    return appId;
  }
}

/**
 * A counter family with an `app` label (and optionally one more, `second`), bounded by ApplicationLabels. Each
 * labelled child is looked up once and kept, so counting is a map read and an add; applications over the limit share
 * one child per `second` value, so the cache holds at most the labelled applications' children.
 */
export class ApplicationCounter {
  private readonly children = new Map<string, Counter.Internal>();

  constructor(
    private readonly counter: Counter<string>,
    private readonly labels: ApplicationLabels,
    private readonly second?: string,
  ) {}

  inc(appId: string, value = 1, secondValue = ''): void {
    const key = this.second ? `${appId}\u0000${secondValue}` : appId;
    (this.children.get(key) ?? this.childOf(key, appId, secondValue)).inc(value);
  }

  private childOf(key: string, appId: string, secondValue: string): Counter.Internal {
    const app = this.labels.labelOf(appId);
    const child = this.counter.labels(this.second ? { app, [this.second]: secondValue } : { app });
    // Over the limit: not cached under its own id, so the cache stays as bounded as the series.
    if (app !== OTHER_APPLICATIONS) this.children.set(key, child);
    return child;
  }
}
