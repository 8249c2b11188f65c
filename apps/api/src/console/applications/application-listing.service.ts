import { utcDay } from '@gateway/common';
import { ApiKeysRepository, ApplicationsRepository, UsageDailyRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { presentApplication } from './application-view';
import { OwnedApplications } from './owned-applications';

/** The owner's applications as the console lists and opens them. */
@Injectable()
export class ApplicationListing {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly owned: OwnedApplications,
    private readonly apiKeys: ApiKeysRepository,
    private readonly usage: UsageDailyRepository,
  ) {}

  /**
   * The owner's applications, each with today's calls (from the usage roll-ups, a few seconds behind). Deleted ones
   * (revoked, kept as a record) only when asked for.
   */
  async list(ownerId: string, includeRevoked = false) {
    const apps = (await this.applications.list(ownerId)).filter((app) => includeRevoked || app.status !== 'revoked');
    const today = utcDay();
    return Promise.all(
      apps.map(async (app) => {
        const [keys, usage] = await Promise.all([
          this.apiKeys.listForApp(app._id),
          this.usage.listForApp(app._id, today, today),
        ]);
        return { ...presentApplication(app, keys), calls_today: usage.reduce((sum, day) => sum + day.calls, 0) };
      }),
    );
  }

  async get(appId: string, ownerId: string) {
    const app = await this.owned.find(appId, ownerId);
    return presentApplication(app, await this.apiKeys.listForApp(appId));
  }
}
