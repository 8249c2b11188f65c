/**
 * Task latency as usage counts it: a fixed-bucket histogram per application, model and UTC day, counted in the same
 * Redis script that counts the rest of a task's usage (OutcomeDelivery) and folded into usage_daily with it. A bucket
 * is named by its upper bound in milliseconds; the last one holds everything slower than the bound before it.
 * Percentiles read from it are bucket upper bounds: "p95 ≤ 2500 ms", never an interpolated guess.
 */
export const LATENCY_BUCKETS_MS = [50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 300_000] as const;

/** Counts per bucket, by upper bound in ms as text (the key a roll-up stores); absent buckets are zero. */
export type LatencyHistogram = Record<string, number>;

/** The bucket `ms` falls into, by its upper bound; the last bucket takes anything slower. */
export function latencyBucket(ms: number): number {
  return LATENCY_BUCKETS_MS.find((bound) => ms <= bound) ?? LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1];
}

/** Adds `more` into `into` (both by bucket bound). */
export function addLatency(into: LatencyHistogram, more: LatencyHistogram | undefined): LatencyHistogram {
  for (const [bound, count] of Object.entries(more ?? {})) into[bound] = (into[bound] ?? 0) + count;
  return into;
}

/**
 * The upper bound of the bucket holding the `quantile` (0..1] of the counted calls, or null when none were counted:
 * at least that share of the calls took at most this many milliseconds.
 */
export function latencyPercentile(histogram: LatencyHistogram, quantile: number): number | null {
  const counts = LATENCY_BUCKETS_MS.map((bound) => histogram[String(bound)] ?? 0);
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(total * quantile);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i];
    if (seen >= rank) return LATENCY_BUCKETS_MS[i];
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1];
}
