import { CatalogService } from '@gateway/catalog';
import { formatNanos } from '@gateway/common';
import { UsersRepository } from '@gateway/db';
import { budgetPeriodEnd, LimitsService } from '@gateway/tenancy';
import { Injectable } from '@nestjs/common';
import { OwnedApplications } from './owned-applications';

/** What an application and its owner spent of their budgets in the current period. */
@Injectable()
export class ApplicationBudget {
  constructor(
    private readonly owned: OwnedApplications,
    private readonly users: UsersRepository,
    private readonly limits: LimitsService,
    private readonly catalog: CatalogService,
  ) {}

  /**
   * The application's budget and its owner's, each with what was spent in its current period (tasks in flight
   * counted at their worst-case cost until they settle), read from the admission counters.
   */
  async spending(appId: string, ownerId: string) {
    const app = await this.owned.find(appId, ownerId);
    const ownerBudget = (await this.users.findById(ownerId))?.ceilings?.budget;
    const spending = await this.limits.budgetSpent({
      appId,
      ...(app.budget?.amountNanos ? { budget: app.budget } : {}),
      ...(ownerBudget?.amountNanos ? { ownerBudget: { userId: ownerId, budget: ownerBudget } } : {}),
    });
    const now = new Date();
    return {
      app_id: appId,
      currency: this.catalog.currency,
      data: spending.map((budget) => ({
        scope: budget.scope,
        period: budget.period,
        period_id: budget.periodId,
        amount: formatNanos(budget.amountNanos),
        spent: formatNanos(budget.spentNanos),
        resets_at: new Date(budgetPeriodEnd(budget.period, now)).toISOString(),
      })),
    };
  }
}
