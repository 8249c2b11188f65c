import type { ApplicationListItem, ApplicationType, UsageSeries } from '@gateway/contracts';

/**
 * What the console API answers is typed from its JSON Schemas in @gateway/contracts (console-views.ts), the same
 * schemas the OpenAPI document gives and the e2e suites check every answer against.
 */
export type {
  AccountView,
  ApiKeyView,
  AuditRecordView,
  BillingRecordView,
  Credentials,
  FailedJob,
  QueueState,
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

/** What the application form sends (POST and PATCH /console/api/applications). */
export interface ApplicationInput {
  name: string;
  description: string;
  type: ApplicationType;
  usage_scenario: string;
  expected_volume: number;
  scope: { capabilities: string[]; models: string[] };
  daily_call_limit: number;
  concurrency_limit: number;
  requests_per_minute: number;
  token_quota: number;
  ip_whitelist: string[];
  callback_url: string;
}

export interface Page<T> {
  data: T[];
  next: string | null;
}
