import type { ApplicationRecord, MoneyBudget } from '@gateway/db';
import { keptBodiesOf } from '../bodies/body-settings';
import { IpAllowList } from '../network/ip-allow-list';
import { Principal } from './principal';

/** The hot-path view of an application, built once per cache fill. */
export function principalOf(
  app: ApplicationRecord,
  keyId: string,
  keyExpiresAt?: Date,
  ownerBudget?: MoneyBudget,
): Principal {
  return {
    appId: app._id,
    ...(app.ownerId ? { ownerId: app.ownerId } : {}),
    keyId,
    scope: app.scope,
    dailyCallLimit: app.dailyCallLimit,
    concurrencyLimit: app.concurrencyLimit,
    requestsPerMinute: app.requestsPerMinute,
    tokenQuota: app.tokenQuota,
    ...(app.budget?.amountNanos ? { budget: app.budget } : {}),
    ...(app.ownerId && ownerBudget?.amountNanos ? { ownerBudget: { userId: app.ownerId, budget: ownerBudget } } : {}),
    ipWhitelist: app.ipWhitelist,
    allowList: new IpAllowList(app.ipWhitelist),
    webhooks: Boolean(app.callbackUrl && !app.callbackDisabledAt && app.status === 'active'),
    ...(app.logBodies ? { bodies: keptBodiesOf(app) } : {}),
    keyExpiresAt: keyExpiresAt ? new Date(keyExpiresAt).getTime() : undefined,
  };
}
