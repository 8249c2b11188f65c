/**
 * One call a task made to an upstream, kept in its task record so an operator can reconcile the gateway's records
 * with the upstream's logs and bill (docs/contracts.md, collections). Never part of an answer to the caller.
 */
export interface UpstreamAttempt {
  /** The route's key, `<upstream>:<model>`. */
  route: string;
  /** For image edits: which of the n outputs the call was for (0-based). */
  image?: number;
  /** The upstream's own id of the request, when it sent one. */
  requestId?: string;
  /** HTTP status of the answer; absent when none came. */
  status?: number;
  /** `ok`, or how the call failed: retryable, route, spent (may have been billed), request, content, internal. */
  outcome: string;
  /** The upstream's error code, e.g. Arrearage. */
  code?: string;
  ms: number;
  /** What the answer said it used (UpstreamUsage); folded into the task's `metered` routes, not stored here. */
  reported?: UpstreamUsage;
}

/** A task records at most this many calls: retries and fallbacks of n = 6 images stay well inside it. */
export const MAX_RECORDED_UPSTREAM_ATTEMPTS = 64;

/**
 * Usage figures of one side of a reconciliation, all integers; only the figures known are present. Cost is in nanos
 * of the catalog currency: an upstream's stated `cost` is taken to be in that currency.
 */
export interface UpstreamUsage {
  promptTokens?: number;
  completionTokens?: number;
  images?: number;
  costNanos?: number;
}

/**
 * One upstream route a task used, for reconciling with that upstream's bill (docs/contracts.md, collections):
 * `computed`, what the gateway billed for the route's answers (tokens as billed, images delivered, cost at the
 * catalog's price), and `reported`, what the route's answers stated, summed over every call that answered, absent
 * when none stated anything.
 */
export interface MeteredRoute {
  route: string;
  computed: UpstreamUsage;
  reported?: UpstreamUsage;
}

/** The two sides' figures added up, a figure present when either side has it. */
export function addUsage(a: UpstreamUsage, b: UpstreamUsage): UpstreamUsage {
  const sum: UpstreamUsage = { ...a };
  for (const figure of USAGE_FIGURES) if (b[figure] !== undefined) sum[figure] = (sum[figure] ?? 0) + b[figure];
  return sum;
}

export const USAGE_FIGURES = ['promptTokens', 'completionTokens', 'images', 'costNanos'] as const;
