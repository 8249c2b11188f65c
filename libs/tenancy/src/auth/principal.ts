import type { MoneyBudget, PermissionScope } from '@gateway/db';
import type { IpAllowList } from '../network/ip-allow-list';

/** The authenticated caller: its application and what the hot path needs to know about it. */
export interface Principal {
  appId: string;
  /** The account that owns the application: its tasks are listed to the account too. */
  ownerId?: string;
  keyId: string;
  scope: PermissionScope;
  dailyCallLimit: number;
  concurrencyLimit: number;
  requestsPerMinute: number;
  tokenQuota: number;
  /** The application's money budget, when it has one. */
  budget?: MoneyBudget;
  /** The owner's budget across their applications, when an operator set one. */
  ownerBudget?: { userId: string; budget: MoneyBudget };
  ipWhitelist: string[];
  allowList: IpAllowList;
  /** Finished tasks are announced to the application's callback URL (docs/contracts.md, webhooks). */
  webhooks: boolean;
  /** The application keeps its calls' bodies this many days (`log_bodies`); absent when it does not. */
  bodies?: { retentionDays: number };
  /** A rotated key in its grace period stops working at this time (epoch ms). */
  keyExpiresAt?: number;
}
