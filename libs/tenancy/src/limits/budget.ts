import type { ModelPriceNanos, ModelSpec } from '@gateway/catalog';
import { formatNanos, tokenCostNanos } from '@gateway/common';
import type { BudgetPeriod } from '@gateway/contracts';
import type { MoneyBudget } from '@gateway/db';

/** A stored budget as the console API and the audit log show it; null for none. */
export function budgetView(budget: MoneyBudget | null | undefined): { amount: string; period: BudgetPeriod } | null {
  return budget?.amountNanos ? { amount: formatNanos(budget.amountNanos), period: budget.period } : null;
}

/** The UTC day (YYYY-MM-DD) or month (YYYY-MM) `at` falls in: the part of a budget key that names its period. */
export function budgetPeriodOf(period: BudgetPeriod, at: Date): string {
  return at.toISOString().slice(0, period === 'day' ? 10 : 7);
}

/** When the period holding `at` ends (epoch ms): the next 00:00 UTC, or the first of the next month. */
export function budgetPeriodEnd(period: BudgetPeriod, at: Date): number {
  const [year, month, day] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()];
  return period === 'day' ? Date.UTC(year, month, day + 1) : Date.UTC(year, month + 1, 1);
}

/** Whole seconds to the end of the period, at least 1: a refused call's Retry-After. */
export function secondsToBudgetReset(period: BudgetPeriod, at: Date): number {
  return Math.max(1, Math.ceil((budgetPeriodEnd(period, at) - at.getTime()) / 1000));
}

/** Seconds a period's counter outlives its end, so a late settlement still finds it (then it expires). */
export function budgetKeyTtlSeconds(period: BudgetPeriod): number {
  return period === 'day' ? 2 * 86_400 : 62 * 86_400;
}

/**
 * What a request may cost at most, reserved against a budget at admission and corrected by settlement to its real
 * cost. Any route may serve it, each at its own price, so the highest price of the model and its routes counts:
 * `images` × the highest per-image price for image edits; for token-priced models, every reserved token at the
 * highest per-token price (input or output), since the reserve does not tell prompt from completion.
 */
export function worstCaseCostNanos(spec: ModelSpec, reserve: { tokens: number; images: number }): number {
  const prices: ModelPriceNanos[] = [spec.priceNanos, ...spec.routes.map((route) => route.priceNanos ?? {})];
  const highest = (pick: (price: ModelPriceNanos) => number | undefined) =>
    Math.max(0, ...prices.map((price) => pick(price) ?? 0));
  const perImage = highest((price) => price.per_image);
  const per1kToken = highest((price) => Math.max(price.per_1k_input_tokens ?? 0, price.per_1k_output_tokens ?? 0));
  return reserve.images * perImage + tokenCostNanos(per1kToken, 0, reserve.tokens);
}
