import type { ApplicationFields, ApplicationListItem, UsageSeries } from '@gateway/contracts';

/**
 * What the console API answers is typed from its JSON Schemas in @gateway/contracts (console-views.ts), the same
 * schemas the OpenAPI document gives and the e2e suites check every answer against.
 */
export type {
  AccountUsage,
  AccountView,
  ApiKeyList,
  ApiKeyView,
  AuditRecordView,
  BillingRecordView,
  CatalogModelList,
  CatalogModelView,
  Credentials,
  FailedJob,
  IssuedApiKey,
  QueueState,
  SessionState,
  SessionUser,
  SignedIn,
  SignUpAccepted,
  UsageSeries,
  UsageTotals,
  WebhookDeliveryView,
} from '@gateway/contracts';

export type Role = 'admin' | 'user';

export type Application = ApplicationListItem;
export type UsagePoint = UsageSeries['data'][number];

/** What the application form sends: every field, in the console API's own shape (libs/contracts). */
export type ApplicationInput = ApplicationFields;

export interface Page<T> {
  data: T[];
  next: string | null;
}
