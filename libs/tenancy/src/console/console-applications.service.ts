import { CatalogService } from '@gateway/catalog';
import { GatewayError } from '@gateway/common';
import { ApiKeysRepository, ApplicationRecord, ApplicationsRepository, NewApplication, UsageDailyRepository } from '@gateway/db';
import { Injectable } from '@nestjs/common';
import { CredentialsService } from '../credentials/credentials.service';

export type ApplicationSettings = Omit<NewApplication, '_id' | 'secretKeyEnc' | 'ownerId'>;

/** The console's applications: every operation scoped to the signed-in owner; another user's id reads as absent (404). */
@Injectable()
export class ConsoleApplicationsService {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly credentials: CredentialsService,
    private readonly usage: UsageDailyRepository,
    private readonly catalog: CatalogService,
  ) {}

  async list(ownerId: string) {
    const apps = await this.applications.list(ownerId);
    return Promise.all(apps.map((app) => this.present(app)));
  }

  async get(appId: string, ownerId: string) {
    return this.present(await this.owned(appId, ownerId));
  }

  async create(ownerId: string, settings: ApplicationSettings) {
    this.checkModels(settings.scope?.models ?? []);
    const issued = await this.credentials.createApplication({ ...settings, ownerId });
    return {
      ...(await this.present(issued.application)),
      // Shown once: only hashes and ciphertexts are kept.
      credentials: { app_id: issued.appId, api_key: issued.apiKey, secret_key: issued.secretKey },
    };
  }

  async update(appId: string, ownerId: string, changes: Partial<ApplicationSettings>) {
    this.checkModels(changes.scope?.models ?? []);
    const app = await this.applications.updateOwned(appId, ownerId, changes);
    if (!app) throw notFound(appId);
    return this.present(app);
  }

  async revoke(appId: string, ownerId: string) {
    const app = await this.applications.updateOwned(appId, ownerId, { status: 'revoked' });
    if (!app) throw notFound(appId);
    await this.apiKeys.revokeAll(appId);
    return this.present(app);
  }

  async rotateApiKey(appId: string, ownerId: string, graceSeconds: number) {
    await this.owned(appId, ownerId);
    const apiKey = await this.credentials.rotateApiKey(appId, graceSeconds * 1000);
    return { app_id: appId, api_key: apiKey, previous_key_valid_for_seconds: graceSeconds };
  }

  async resetSecretKey(appId: string, ownerId: string) {
    const secretKey = await this.credentials.resetSecretKey(appId, ownerId);
    if (!secretKey) throw notFound(appId);
    return { app_id: appId, secret_key: secretKey };
  }

  /** Daily series for charts: one point per day and model. */
  async usageSeries(appId: string, ownerId: string, from: string, to: string) {
    await this.owned(appId, ownerId);
    const days = await this.usage.listForApp(appId, from, to);
    return {
      app_id: appId,
      from,
      to,
      data: days.map((d) => ({
        day: d.day, model: d.model, calls: d.calls, errors: d.errors,
        prompt_tokens: d.promptTokens, completion_tokens: d.completionTokens, images: d.images, cost: d.cost,
      })),
    };
  }

  private async owned(appId: string, ownerId: string): Promise<ApplicationRecord> {
    const app = await this.applications.findOwned(appId, ownerId);
    if (!app) throw notFound(appId);
    return app;
  }

  private checkModels(models: string[]): void {
    models.forEach((id, index) => {
      if (!this.catalog.find(id)) throw new GatewayError('ModelNotFound', `model "${id}" is not in the catalog`, { param: `scope.models[${index}]` });
    });
  }

  private async present(app: ApplicationRecord) {
    const keys = await this.apiKeys.listForApp(app._id);
    return {
      id: app._id,
      name: app.name,
      description: app.description,
      type: app.type,
      usage_scenario: app.usageScenario,
      expected_volume: app.expectedVolume,
      scope: { capabilities: app.scope.capabilities, models: app.scope.models },
      daily_call_limit: app.dailyCallLimit,
      concurrency_limit: app.concurrencyLimit,
      requests_per_minute: app.requestsPerMinute,
      token_quota: app.tokenQuota,
      ip_whitelist: app.ipWhitelist,
      callback_url: app.callbackUrl ?? null,
      status: app.status,
      created_at: new Date(app.createdAt).toISOString(),
      updated_at: new Date(app.updatedAt).toISOString(),
      api_keys: keys.map((k) => ({
        prefix: k.prefix,
        status: k.expiresAt && new Date(k.expiresAt).getTime() <= Date.now() ? 'expired' : k.status,
        created_at: new Date(k.createdAt).toISOString(),
        expires_at: k.expiresAt ? new Date(k.expiresAt).toISOString() : null,
      })),
    };
  }
}

function notFound(appId: string): GatewayError {
  return new GatewayError('NotFound', `no application ${appId} in your account`, { param: 'id' });
}
