import { formatNanos, sumNanos } from '@gateway/common';
import type { UsageDay } from '@gateway/db';

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
}

/** What roll-ups add up to: counts as numbers, cost as BigInt nanos, nothing in floating point. */
export function usageTotals(days: UsageDay[]): UsageView {
  const sum = (counter: (day: UsageDay) => number) => days.reduce((total, day) => total + counter(day), 0);
  const costNanos = sumNanos(days.map((day) => day.costNanos));
  return {
    calls: sum((day) => day.calls),
    errors: sum((day) => day.errors),
    prompt_tokens: sum((day) => day.promptTokens),
    completion_tokens: sum((day) => day.completionTokens),
    images: sum((day) => day.images),
    cost_nanos: costNanos.toString(),
    cost: formatNanos(costNanos),
  };
}

/** Totals per value of `key` (a day, a model), in the order the values first appear. */
export function usageTotalsBy<K extends 'day' | 'model'>(days: UsageDay[], key: K): (Record<K, string> & UsageView)[] {
  const groups = new Map<string, UsageDay[]>();
  for (const day of days) {
    const group = groups.get(day[key]);
    if (group) group.push(day);
    else groups.set(day[key], [day]);
  }
  return [...groups].map(
    ([value, group]) => ({ [key]: value, ...usageTotals(group) }) as Record<K, string> & UsageView,
  );
}
