import { ApiKeyRecord, ApplicationRecord, NewApplication } from '@gateway/db';
import { bodiesSettings, budgetView, presentKey } from '@gateway/tenancy';

/** What the console may set on an application, in the repository's names. */
export type ApplicationSettings = Omit<NewApplication, '_id' | 'secretKeyEnc' | 'ownerId'>;

/** An application as the console's API answers it, with its keys (never the keys themselves). */
export function presentApplication(app: ApplicationRecord, keys: ApiKeyRecord[]) {
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
    budget: budgetView(app.budget),
    ip_whitelist: app.ipWhitelist,
    callback_url: app.callbackUrl || null,
    callback_disabled_at: app.callbackDisabledAt ? new Date(app.callbackDisabledAt).toISOString() : null,
    ...bodiesSettings(app),
    status: app.status,
    created_at: new Date(app.createdAt).toISOString(),
    updated_at: new Date(app.updatedAt).toISOString(),
    api_keys: keys.map(presentKey),
  };
}
