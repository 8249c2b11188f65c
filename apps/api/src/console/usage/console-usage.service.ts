import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ApplicationRecord, ApplicationsRepository, UsageDailyRepository, UsageDay } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { usageCsv, usageTotals, usageTotalsBy } from './usage-totals';

/**
 * Usage for the console's charts and exports, of one application or of every application of an account: the
 * roll-ups of usage_daily added up here in integers, so the console shows money without adding it up.
 */
@Injectable()
export class ConsoleUsageService {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly usage: UsageDailyRepository,
    private readonly catalog: CatalogService,
  ) {}

  /** One point per day and model, with the totals per day, per model and over the range. */
  async series(appId: string, ownerId: string, from: string, to: string) {
    const app = await this.owned(appId, ownerId);
    const days = await this.usage.listForApp(appId, from, to);
    return {
      app_id: appId,
      from,
      to,
      currency: this.catalog.currency,
      // What the application may call: the console charts only these.
      capabilities: app.scope.capabilities,
      data: days.map((d) => ({ day: d.day, model: d.model, ...usageTotals([d]) })),
      ...breakdown(days),
    };
  }

  /** Every application of the account over the range: per application, per day, per model and in all. */
  async account(ownerId: string, from: string, to: string) {
    const { apps, days } = await this.accountDays(ownerId, from, to);
    const byApp = new Map(usageTotalsBy(days, 'appId').map(({ key, totals }) => [key, totals]));
    return {
      from,
      to,
      currency: this.catalog.currency,
      // Every application, those without calls in the range at zero, busiest first.
      by_app: apps
        .map((app) => ({
          app_id: app._id,
          name: app.name,
          status: app.status,
          ...(byApp.get(app._id) ?? usageTotals([])),
        }))
        .sort((a, b) => b.calls - a.calls),
      ...breakdown(sortedByDay(days)),
    };
  }

  /** One application's usage as CSV. */
  async applicationCsv(appId: string, ownerId: string, from: string, to: string): Promise<string> {
    const app = await this.owned(appId, ownerId);
    const days = await this.usage.listForApp(appId, from, to);
    return usageCsv(days, new Map([[app._id, app.name]]), this.catalog.currency);
  }

  /** Every application's usage as CSV, by day, then application. */
  async accountCsv(ownerId: string, from: string, to: string): Promise<string> {
    const { apps, days } = await this.accountDays(ownerId, from, to);
    return usageCsv(sortedByDay(days), new Map(apps.map((app) => [app._id, app.name])), this.catalog.currency);
  }

  private async accountDays(ownerId: string, from: string, to: string) {
    const apps = await this.applications.list(ownerId);
    const days = (await Promise.all(apps.map((app) => this.usage.listForApp(app._id, from, to)))).flat();
    return { apps, days };
  }

  private async owned(appId: string, ownerId: string): Promise<ApplicationRecord> {
    const app = await this.applications.findOwned(appId, ownerId);
    if (!app) throw new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
    return app;
  }
}

/** Totals per day (in the order of `days`), per model, and over all of them. */
function breakdown(days: UsageDay[]) {
  return {
    by_day: usageTotalsBy(days, 'day').map(({ key, totals }) => ({ day: key, ...totals })),
    by_model: usageTotalsBy(days, 'model').map(({ key, totals }) => ({ model: key, ...totals })),
    total: usageTotals(days),
  };
}

/** Oldest day first (a stable sort: within a day, the order of the applications). */
function sortedByDay(days: UsageDay[]): UsageDay[] {
  return [...days].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}
