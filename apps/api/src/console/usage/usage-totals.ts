import { addLatency, formatNanos, latencyPercentile, sumNanos } from '@gateway/common';
import type { UsageDay } from '@gateway/db';
import { csvLine } from '../csv';

/** Usage as the console API shows it. Money goes out as strings, so the console never does money arithmetic. */
export interface UsageView {
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  images: number;
  /** Integer nanos of the catalog currency, as text: a total may pass Number.MAX_SAFE_INTEGER. */
  cost_nanos: string;
  /** The exact decimal of `cost_nanos`. */
  cost: string;
  /** Upper bounds (ms) of the latency buckets holding the median and the 95th percentile; null without timed calls. */
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}

/** What roll-ups add up to: counts as numbers, cost as BigInt nanos, nothing in floating point. */
export function usageTotals(days: UsageDay[]): UsageView {
  const sum = (counter: (day: UsageDay) => number) => days.reduce((total, day) => total + counter(day), 0);
  const costNanos = sumNanos(days.map((day) => day.costNanos));
  const latency = days.reduce((histogram, day) => addLatency(histogram, day.latency), {});
  return {
    calls: sum((day) => day.calls),
    errors: sum((day) => day.errors),
    prompt_tokens: sum((day) => day.promptTokens),
    completion_tokens: sum((day) => day.completionTokens),
    images: sum((day) => day.images),
    cost_nanos: costNanos.toString(),
    cost: formatNanos(costNanos),
    latency_p50_ms: latencyPercentile(latency, 0.5),
    latency_p95_ms: latencyPercentile(latency, 0.95),
  };
}

/** Totals per value of `key` (a day, a model, an application), in the order the values first appear. */
export function usageTotalsBy<K extends 'day' | 'model' | 'appId'>(
  days: UsageDay[],
  key: K,
): { key: string; totals: UsageView }[] {
  const groups = new Map<string, UsageDay[]>();
  for (const day of days) {
    const group = groups.get(day[key]);
    if (group) group.push(day);
    else groups.set(day[key], [day]);
  }
  return [...groups].map(([value, group]) => ({ key: value, totals: usageTotals(group) }));
}

/** The columns of a usage export, one row per application, day and model. */
const CSV_HEADER = [
  'app_id',
  'app_name',
  'day',
  'model',
  'calls',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'images',
  'cost',
  'currency',
  'latency_p50_ms',
  'latency_p95_ms',
];

/**
 * Usage as CSV (RFC 4180, CRLF): every charge of the range, tokens and images alike, one row per application, day and
 * model, cost as the exact decimal. A cell a spreadsheet would run as a formula is prefixed with a quote.
 */
export function usageCsv(days: UsageDay[], appNames: Map<string, string>, currency: string): string {
  const rows = days.map((day) => {
    const totals = usageTotals([day]);
    return [
      day.appId,
      appNames.get(day.appId) ?? '',
      day.day,
      day.model,
      totals.calls,
      totals.errors,
      totals.prompt_tokens,
      totals.completion_tokens,
      totals.images,
      totals.cost,
      currency,
      totals.latency_p50_ms ?? '',
      totals.latency_p95_ms ?? '',
    ];
  });
  return [CSV_HEADER, ...rows].map(csvLine).join('');
}
