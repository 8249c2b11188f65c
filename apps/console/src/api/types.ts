import type { ApplicationType, WebhookDeliveryOutcome } from '@gateway/contracts';

export type Role = 'admin' | 'user';

export interface SessionUser {
  id: string;
  email: string;
  role: Role;
}

export interface SignedIn {
  user: SessionUser;
  csrf_token: string;
}

/** An invited sign-up's answer: the account can sign in (docs/contracts.md#console-sign-in-and-sign-up). */
export interface SignUpAccepted {
  status: 'accepted';
  message: string;
}

export interface ApiKeyView {
  prefix: string;
  status: string;
  created_at: string;
  expires_at: string | null;
}

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

export interface Application extends Omit<ApplicationInput, 'callback_url'> {
  id: string;
  callback_url: string | null;
  callback_disabled_at: string | null;
  status: 'active' | 'revoked';
  calls_today?: number;
  created_at: string;
  updated_at: string;
  api_keys: ApiKeyView[];
}

/** Shown once, right after creation, rotation or reset. */
export interface Credentials {
  app_id: string;
  api_key?: string;
  secret_key?: string;
  previous_key_valid_for_seconds?: number;
}

/** Usage as the console API adds it up. Money comes as strings and is only shown, never added up here. */
export interface UsageTotals {
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  images: number;
  /** Integer nanos (billionths) of the catalog currency. */
  cost_nanos: string;
  /** The exact decimal of `cost_nanos`. */
  cost: string;
}

export interface UsagePoint extends UsageTotals {
  day: string;
  model: string;
}

/** GET /applications/{id}/usage: one point per day and model, and the totals per day, per model and overall. */
export interface UsageSeries {
  currency: string;
  data: UsagePoint[];
  by_day: (UsageTotals & { day: string })[];
  by_model: (UsageTotals & { model: string })[];
  total: UsageTotals;
}

export interface Page<T> {
  data: T[];
  next: string | null;
}

export interface BillingRecordView {
  task_id: string;
  image_index: number;
  model: string;
  /** Integer nanos of `currency`. */
  unit_price_nanos: string;
  /** The exact decimal of `unit_price_nanos`. */
  unit_price: string;
  currency: string;
  day: string;
  created_at: string;
}

export interface WebhookDeliveryView {
  id: string;
  task_id: string;
  event: string;
  url: string;
  attempt: number;
  redelivery: boolean;
  outcome: WebhookDeliveryOutcome;
  http_status: number | null;
  error: string | null;
  duration_ms?: number;
  created_at: string;
}
