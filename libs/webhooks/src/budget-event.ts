import { nanosToNumber } from '@gateway/common';
import type { BudgetCrossing } from '@gateway/queue';

/** The events a budget fires, once each per period: at 80 % of the budget, and at 100 %. */
export type BudgetEventType = 'budget.warning' | 'budget.exhausted';

/** The body POSTed to an application's callback URL when a budget it spends from reaches a threshold. */
export interface BudgetWebhookEvent {
  type: BudgetEventType;
  timestamp: string;
  data: {
    app_id: string;
    /** `application`: this application's budget; `user`: its owner's, across their applications. */
    scope: 'application' | 'user';
    period: 'day' | 'month';
    /** The UTC day (YYYY-MM-DD) or month (YYYY-MM) the spending counts for. */
    period_id: string;
    threshold: 80 | 100;
    /** In the catalog currency, as JSON numbers printing the exact decimal (like a task event's `cost`). */
    budget: number;
    /** Spent in the period when the threshold was reached, tasks in flight counted at their worst-case cost. */
    spent: number;
    /** The task whose cost reached the threshold. */
    task_id: string;
  };
}

export function budgetEventOf(budget: Pick<BudgetCrossing, 'threshold'>): BudgetEventType {
  return budget.threshold >= 100 ? 'budget.exhausted' : 'budget.warning';
}

/** The id receivers de-duplicate on: one per application, budget, period and threshold. */
export function budgetWebhookIdOf(appId: string, budget: BudgetCrossing): string {
  return `msg_budget_${appId}_${budget.scope}_${budget.periodId}_${budget.threshold}`;
}

/** The event of a budget crossing, built at the job's creation time so every attempt sends the same body. */
export function buildBudgetEvent(appId: string, taskId: string, budget: BudgetCrossing, now: Date): BudgetWebhookEvent {
  return {
    type: budgetEventOf(budget),
    timestamp: now.toISOString(),
    data: {
      app_id: appId,
      scope: budget.scope,
      period: budget.period,
      period_id: budget.periodId,
      threshold: budget.threshold,
      budget: nanosToNumber(budget.amountNanos),
      spent: nanosToNumber(budget.spentNanos),
      task_id: taskId,
    },
  };
}
