import type { FromSchema } from 'json-schema-to-ts';
import { APPLICATION_TYPES, BUDGET_PERIODS } from './application-fields';
import { WEBHOOK_DELIVERY_OUTCOMES } from './webhook-outcomes';

/**
 * What the console API answers, as JSON Schema: the OpenAPI document's components (apps/api/src/openapi), against
 * which the e2e suites check every answer, and the console's types (apps/console/src/api/types.ts), derived here by
 * json-schema-to-ts. One shape, so the console cannot expect what the API does not send.
 */
const STRING = { type: 'string' } as const;
const INTEGER = { type: 'integer' } as const;
const TIME = { type: 'string', description: 'ISO 8601, UTC' } as const;
const NULLABLE_STRING = { type: ['string', 'null'] } as const;
const NULLABLE_TIME = { type: ['string', 'null'], description: 'ISO 8601, UTC' } as const;

export const SESSION_USER_SCHEMA = {
  type: 'object',
  properties: { id: STRING, email: STRING, role: { enum: ['admin', 'user'] } },
  required: ['id', 'email', 'role'],
  additionalProperties: false,
} as const;

export const SIGNED_IN_SCHEMA = {
  type: 'object',
  properties: { user: SESSION_USER_SCHEMA, csrf_token: STRING },
  required: ['user', 'csrf_token'],
  additionalProperties: false,
} as const;

/** `GET /console/api/auth/me` without a session: signed out is an answer, not an error. */
export const SIGNED_OUT_SCHEMA = {
  type: 'object',
  properties: { user: { type: 'null' } },
  required: ['user'],
  additionalProperties: false,
} as const;

export const SESSION_STATE_SCHEMA = { oneOf: [SIGNED_IN_SCHEMA, SIGNED_OUT_SCHEMA] } as const;

export const SIGN_UP_ACCEPTED_SCHEMA = {
  type: 'object',
  properties: { status: { const: 'accepted' }, message: STRING },
  required: ['status', 'message'],
  additionalProperties: false,
} as const;

const API_KEY_PROPERTIES = {
  id: STRING,
  name: STRING,
  prefix: { type: 'string', description: 'The first 10 characters of the key and an ellipsis' },
  status: { enum: ['active', 'expired', 'revoked'] },
  created_at: TIME,
  expires_at: NULLABLE_TIME,
  last_used_at: {
    ...NULLABLE_TIME,
    description: 'ISO 8601, UTC; folded in batches, so up to KEY_LAST_USED_FLUSH_MS behind',
  },
  revoked_at: NULLABLE_TIME,
} as const;
const API_KEY_REQUIRED = Object.keys(API_KEY_PROPERTIES) as (keyof typeof API_KEY_PROPERTIES)[];

export const API_KEY_VIEW_SCHEMA = {
  type: 'object',
  properties: API_KEY_PROPERTIES,
  required: API_KEY_REQUIRED,
  additionalProperties: false,
} as const;

/** GET /console/api/applications/{id}/keys. */
export const API_KEY_LIST_SCHEMA = {
  type: 'object',
  properties: { app_id: STRING, data: { type: 'array', items: API_KEY_VIEW_SCHEMA } },
  required: ['app_id', 'data'],
  additionalProperties: false,
} as const;

/** POST /console/api/applications/{id}/keys: the key's view and, this once, the key. */
export const ISSUED_API_KEY_SCHEMA = {
  type: 'object',
  properties: { ...API_KEY_PROPERTIES, api_key: STRING },
  required: [...API_KEY_REQUIRED, 'api_key'],
  additionalProperties: false,
} as const;

/** A money budget, null for none: an exact decimal of the catalog currency per UTC day or month. */
const BUDGET_VIEW = {
  type: ['object', 'null'],
  description: 'The money budget, null for none: an exact decimal of the catalog currency per UTC day or month',
  properties: { amount: STRING, period: { enum: BUDGET_PERIODS } },
  required: ['amount', 'period'],
  additionalProperties: false,
} as const;

const APPLICATION_PROPERTIES = {
  id: STRING,
  name: STRING,
  description: STRING,
  type: { enum: APPLICATION_TYPES },
  usage_scenario: STRING,
  expected_volume: INTEGER,
  scope: {
    type: 'object',
    properties: { capabilities: { type: 'array', items: STRING }, models: { type: 'array', items: STRING } },
    required: ['capabilities', 'models'],
    additionalProperties: false,
  },
  daily_call_limit: INTEGER,
  concurrency_limit: INTEGER,
  requests_per_minute: INTEGER,
  token_quota: INTEGER,
  budget: BUDGET_VIEW,
  ip_whitelist: { type: 'array', items: STRING },
  callback_url: NULLABLE_STRING,
  callback_disabled_at: NULLABLE_TIME,
  log_bodies: { type: 'boolean', description: "Each call's request and response bodies are kept" },
  body_retention_days: { type: 'integer', description: 'Days kept bodies live before they are deleted' },
  status: { enum: ['active', 'revoked'] },
  created_at: TIME,
  updated_at: TIME,
  api_keys: { type: 'array', items: API_KEY_VIEW_SCHEMA },
} as const;
const APPLICATION_REQUIRED = Object.keys(APPLICATION_PROPERTIES) as (keyof typeof APPLICATION_PROPERTIES)[];

export const APPLICATION_VIEW_SCHEMA = {
  type: 'object',
  properties: APPLICATION_PROPERTIES,
  required: APPLICATION_REQUIRED,
  additionalProperties: false,
} as const;

/** GET /console/api/applications: each application with its calls so far today. */
export const APPLICATION_LIST_SCHEMA = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: { ...APPLICATION_VIEW_SCHEMA, properties: { ...APPLICATION_PROPERTIES, calls_today: INTEGER } },
    },
  },
  required: ['data'],
  additionalProperties: false,
} as const;

/** Shown once, right after creation, rotation or reset: only hashes and ciphertexts are kept. */
export const CREDENTIALS_SCHEMA = {
  type: 'object',
  properties: { app_id: STRING, api_key: STRING, secret_key: STRING, previous_key_valid_for_seconds: INTEGER },
  required: ['app_id'],
  additionalProperties: false,
} as const;

export const ISSUED_APPLICATION_SCHEMA = {
  type: 'object',
  properties: { ...APPLICATION_PROPERTIES, credentials: CREDENTIALS_SCHEMA },
  required: [...APPLICATION_REQUIRED, 'credentials'],
  additionalProperties: false,
} as const;

const USAGE_PROPERTIES = {
  calls: INTEGER,
  errors: INTEGER,
  prompt_tokens: INTEGER,
  completion_tokens: INTEGER,
  images: INTEGER,
  cost_nanos: { type: 'string', pattern: '^\\d+$', description: 'Integer nanos of the catalog currency' },
  cost: { type: 'string', description: 'The exact decimal of cost_nanos' },
  latency_p50_ms: {
    type: ['integer', 'null'],
    description:
      'Upper bound (ms) of the latency bucket holding the median call, admission to answer; null without calls',
  },
  latency_p95_ms: {
    type: ['integer', 'null'],
    description: 'Upper bound (ms) of the latency bucket holding the 95th percentile; null without calls',
  },
} as const;
const USAGE_REQUIRED = Object.keys(USAGE_PROPERTIES) as (keyof typeof USAGE_PROPERTIES)[];

export const USAGE_TOTALS_SCHEMA = {
  type: 'object',
  properties: USAGE_PROPERTIES,
  required: USAGE_REQUIRED,
  additionalProperties: false,
} as const;

/** Usage totals with the day, model or application they are of. */
function usageOf<K extends 'day' | 'model' | 'app_id' | 'name' | 'status'>(keys: readonly K[]) {
  return {
    type: 'object',
    properties: {
      ...USAGE_PROPERTIES,
      ...(Object.fromEntries(keys.map((key) => [key, STRING])) as Record<K, typeof STRING>),
    },
    required: [...USAGE_REQUIRED, ...keys],
    additionalProperties: false,
  } as const;
}

/** Totals per day, per model and over the range, as both usage answers give them. */
const USAGE_BREAKDOWN = {
  by_day: { type: 'array', items: usageOf(['day'] as const) },
  by_model: { type: 'array', items: usageOf(['model'] as const) },
  total: USAGE_TOTALS_SCHEMA,
} as const;

export const USAGE_SERIES_SCHEMA = {
  type: 'object',
  properties: {
    app_id: STRING,
    from: STRING,
    to: STRING,
    currency: STRING,
    capabilities: { type: 'array', items: STRING, description: "The application's scope: what it may call" },
    data: { type: 'array', items: usageOf(['day', 'model'] as const) },
    ...USAGE_BREAKDOWN,
  },
  required: ['app_id', 'from', 'to', 'currency', 'capabilities', 'data', 'by_day', 'by_model', 'total'],
  additionalProperties: false,
} as const;

/** Usage of every application of an account (the dashboard). */
export const ACCOUNT_USAGE_SCHEMA = {
  type: 'object',
  properties: {
    from: STRING,
    to: STRING,
    currency: STRING,
    by_app: { type: 'array', items: usageOf(['app_id', 'name', 'status'] as const) },
    ...USAGE_BREAKDOWN,
  },
  required: ['from', 'to', 'currency', 'by_app', 'by_day', 'by_model', 'total'],
  additionalProperties: false,
} as const;

const BOOLEAN = { type: 'boolean' } as const;

/** One model of the catalog as the console shows it to people. */
export const CATALOG_MODEL_VIEW_SCHEMA = {
  type: 'object',
  properties: {
    id: STRING,
    capability: STRING,
    family: NULLABLE_STRING,
    aliases: { type: 'array', items: STRING },
    snapshots: { type: 'array', items: STRING, description: 'The other dated models of its family' },
    available: BOOLEAN,
    deprecated: NULLABLE_STRING,
    limits: { type: 'object' },
    price: { type: 'object', additionalProperties: STRING, description: 'As written in config/models.yaml' },
    prices: {
      type: 'array',
      description: 'Per 1M tokens or per image, exact decimals of the catalog currency',
      items: {
        type: 'object',
        properties: {
          unit: { enum: ['1m_input_tokens', '1m_output_tokens', 'image'] },
          amount: STRING,
        },
        required: ['unit', 'amount'],
        additionalProperties: false,
      },
    },
    free: { ...BOOLEAN, description: 'Every price is zero' },
    runs_on: {
      type: 'array',
      items: { enum: ['local', 'upstream'] },
      description:
        "Where the routes this gateway can reach run, in fallback order: the worker's own engine or an upstream",
    },
    accepts: {
      type: 'object',
      properties: {
        tools: BOOLEAN,
        structured_output: BOOLEAN,
        vision: BOOLEAN,
        dimensions: { type: ['array', 'null'], items: INTEGER },
      },
      required: ['tools', 'structured_output', 'vision', 'dimensions'],
      additionalProperties: false,
    },
  },
  required: [
    'id',
    'capability',
    'family',
    'aliases',
    'snapshots',
    'available',
    'deprecated',
    'limits',
    'price',
    'prices',
    'free',
    'runs_on',
    'accepts',
  ],
  additionalProperties: false,
} as const;

export const CATALOG_MODEL_LIST_SCHEMA = {
  type: 'object',
  properties: { currency: STRING, data: { type: 'array', items: CATALOG_MODEL_VIEW_SCHEMA } },
  required: ['currency', 'data'],
  additionalProperties: false,
} as const;

export const BILLING_RECORD_VIEW_SCHEMA = {
  type: 'object',
  properties: {
    task_id: STRING,
    image_index: INTEGER,
    model: STRING,
    unit_price_nanos: STRING,
    unit_price: STRING,
    currency: STRING,
    day: STRING,
    created_at: TIME,
  },
  required: ['task_id', 'image_index', 'model', 'unit_price_nanos', 'unit_price', 'currency', 'day', 'created_at'],
  additionalProperties: false,
} as const;

export const WEBHOOK_DELIVERY_VIEW_SCHEMA = {
  type: 'object',
  properties: {
    id: STRING,
    task_id: STRING,
    event: STRING,
    webhook_id: STRING,
    url: STRING,
    attempt: INTEGER,
    redelivery: { type: 'boolean' },
    outcome: { enum: WEBHOOK_DELIVERY_OUTCOMES },
    http_status: { type: ['integer', 'null'] },
    error: NULLABLE_STRING,
    duration_ms: INTEGER,
    response: NULLABLE_STRING,
    /** The attempts the delivery has in all; null on attempts recorded before this was kept. */
    attempts: { type: ['integer', 'null'] },
    /** When the event is tried again; null once no try is left. */
    next_attempt_at: NULLABLE_TIME,
    created_at: TIME,
  },
  required: ['id', 'task_id', 'event', 'url', 'attempt', 'redelivery', 'outcome', 'http_status', 'error', 'created_at'],
  additionalProperties: false,
} as const;

/** A /v1 call refused before the queue: it has no task, and is kept in Redis, capped per application. */
export const REFUSED_CALL_VIEW_SCHEMA = {
  type: 'object',
  properties: {
    app_id: STRING,
    at: TIME,
    status: INTEGER,
    code: STRING,
    message: STRING,
    method: STRING,
    route: STRING,
    request_id: STRING,
    key_id: NULLABLE_STRING,
    model: NULLABLE_STRING,
    async: { type: 'boolean' },
    latency_ms: INTEGER,
  },
  required: [
    'app_id',
    'at',
    'status',
    'code',
    'message',
    'method',
    'route',
    'request_id',
    'key_id',
    'model',
    'async',
    'latency_ms',
  ],
  additionalProperties: false,
} as const;

/** Refused calls, newest first; `not_listed` counts the older ones the capped lists dropped. */
export const REFUSED_CALL_PAGE_SCHEMA = {
  type: 'object',
  properties: {
    data: { type: 'array', items: REFUSED_CALL_VIEW_SCHEMA },
    not_listed: INTEGER,
  },
  required: ['data', 'not_listed'],
  additionalProperties: false,
} as const;

export const TASK_VIEW_SCHEMA = {
  type: 'object',
  properties: {
    id: STRING,
    status: STRING,
    endpoint: STRING,
    model: STRING,
    resolved_model: STRING,
    key_id: NULLABLE_STRING,
    async: { type: ['boolean', 'null'] },
    usage: { type: ['object', 'null'] },
    cost_nanos: STRING,
    cost: STRING,
    error: {
      anyOf: [
        {
          type: 'object',
          properties: { code: STRING, message: STRING },
          required: ['code', 'message'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    },
    created_at: TIME,
    finished_at: NULLABLE_TIME,
  },
  required: [
    'id',
    'status',
    'endpoint',
    'model',
    'resolved_model',
    'key_id',
    'async',
    'usage',
    'cost_nanos',
    'cost',
    'error',
    'created_at',
  ],
  additionalProperties: false,
} as const;

/** A task in the account's listing across its applications: the task and the application it belongs to. */
export const ACCOUNT_TASK_VIEW_SCHEMA = {
  ...TASK_VIEW_SCHEMA,
  properties: { app_id: STRING, ...TASK_VIEW_SCHEMA.properties },
  required: ['app_id', ...TASK_VIEW_SCHEMA.required],
} as const;

/** The account's tasks, newest first: a page and the cursor of the next (null on the last). */
export const ACCOUNT_TASK_PAGE_SCHEMA = {
  type: 'object',
  properties: { data: { type: 'array', items: ACCOUNT_TASK_VIEW_SCHEMA }, next: NULLABLE_STRING },
  required: ['data', 'next'],
  additionalProperties: false,
} as const;

/** A newest-first listing of one application's records: a page and the cursor of the next (null on the last). */
export function pageSchema<S extends object>(item: S) {
  return {
    type: 'object',
    properties: { app_id: STRING, data: { type: 'array', items: item }, next: NULLABLE_STRING },
    required: ['app_id', 'data', 'next'],
    additionalProperties: false,
  } as const;
}

/** A JSON object whose listed properties are all present and the only ones. */
function exact<P extends Record<string, unknown>>(properties: P) {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties) as (keyof P & string)[],
    additionalProperties: false,
  } as const;
}
const NULLABLE_INTEGER = { type: ['integer', 'null'] } as const;
const listOf = <S extends object>(item: S) => exact({ data: { type: 'array', items: item } as const });

export const ACCOUNT_VIEW_SCHEMA = exact({
  id: STRING,
  email: STRING,
  role: { enum: ['admin', 'user'] },
  disabled: { type: 'boolean' },
  ceilings: exact({
    max_applications: NULLABLE_INTEGER,
    max_daily_call_limit: NULLABLE_INTEGER,
    max_token_quota: NULLABLE_INTEGER,
    budget: BUDGET_VIEW,
  }),
  created_at: TIME,
} as const);

/** GET /console/api/admin/users: each account with its number of applications. */
export const ACCOUNT_LIST_SCHEMA = listOf({
  ...ACCOUNT_VIEW_SCHEMA,
  properties: { ...ACCOUNT_VIEW_SCHEMA.properties, applications: INTEGER },
  required: [...ACCOUNT_VIEW_SCHEMA.required, 'applications'],
} as const);

/** GET /console/api/admin/applications: a page of every account's applications, with their owner. */
export const OPERATOR_APPLICATION_LIST_SCHEMA = exact({
  data: {
    type: 'array',
    items: exact({
      id: STRING,
      name: STRING,
      owner_id: NULLABLE_STRING,
      owner_email: NULLABLE_STRING,
      status: { enum: ['active', 'revoked'] },
      type: { enum: APPLICATION_TYPES },
      daily_call_limit: INTEGER,
      token_quota: INTEGER,
      created_at: TIME,
    } as const),
  },
  next: NULLABLE_STRING,
} as const);

/** GET /console/api/admin/invitations: the unused ones; `role: admin` is an operator setup link. */
export const INVITATION_LIST_SCHEMA = listOf(
  exact({
    id: STRING,
    email: NULLABLE_STRING,
    role: { enum: ['admin', 'user'] },
    created_by: STRING,
    created_at: TIME,
    expires_at: TIME,
    expired: { type: 'boolean' },
  } as const),
);

export const INVITATION_REVOKED_SCHEMA = exact({ id: STRING, status: { const: 'revoked' } } as const);

export const SIGNUP_POLICY_SCHEMA = exact({ signup: { enum: ['open', 'invite', 'closed'] } } as const);

/** GET /console/api/admin/users/{id}/usage: an account's usage, in total and per application. */
export const USER_USAGE_SCHEMA = exact({
  user_id: STRING,
  from: STRING,
  to: STRING,
  total: USAGE_TOTALS_SCHEMA,
  by_application: {
    type: 'array',
    items: {
      type: 'object',
      properties: { app_id: STRING, name: STRING, status: { enum: ['active', 'revoked'] }, ...USAGE_PROPERTIES },
      required: ['app_id', 'name', 'status', ...USAGE_REQUIRED],
      additionalProperties: false,
    },
  },
} as const);

export const QUEUE_STATES_SCHEMA = listOf(
  exact({ name: STRING, waiting: INTEGER, active: INTEGER, delayed: INTEGER, failed: INTEGER, workers: INTEGER }),
);

export const FAILED_JOBS_SCHEMA = listOf(
  exact({
    id: STRING,
    queue: STRING,
    task_id: NULLABLE_STRING,
    app_id: NULLABLE_STRING,
    reason: STRING,
    status: NULLABLE_INTEGER,
    retryable: { type: 'boolean' } as const,
    attempts: INTEGER,
    failed_at: NULLABLE_TIME,
  }),
);

export const JOB_RETRY_SCHEMA = exact({ queue: STRING, job_id: STRING, status: { const: 'retrying' } } as const);

/** The token is shown only in this answer. */
export const INVITATION_SCHEMA = exact({ id: STRING, invitation: STRING, email: NULLABLE_STRING, expires_at: TIME });

export const REDELIVERY_SCHEMA = exact({
  app_id: STRING,
  task_id: STRING,
  event: STRING,
  status: { const: 'queued' },
} as const);

export const AUDIT_RECORD_VIEW_SCHEMA = exact({
  id: STRING,
  action: STRING,
  actor: exact({ id: NULLABLE_STRING, email: NULLABLE_STRING }),
  address: STRING,
  app_id: NULLABLE_STRING,
  user_id: NULLABLE_STRING,
  changes: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: { before: {}, after: {} },
      required: ['before', 'after'],
      additionalProperties: false,
    },
  },
  created_at: TIME,
} as const);

export const AUDIT_PAGE_SCHEMA = exact({
  data: { type: 'array', items: AUDIT_RECORD_VIEW_SCHEMA },
  next: NULLABLE_STRING,
} as const);

/** GET /console/api/applications/{id}/budget: the application's budget and its owner's, in their current periods. */
export const BUDGET_STATE_SCHEMA = {
  type: 'object',
  properties: {
    app_id: STRING,
    currency: STRING,
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          scope: { enum: ['application', 'user'] },
          period: { enum: BUDGET_PERIODS },
          period_id: { type: 'string', description: 'The UTC day (YYYY-MM-DD) or month (YYYY-MM)' },
          amount: { type: 'string', description: 'The budget, an exact decimal of the catalog currency' },
          spent: {
            type: 'string',
            description: 'Spent in the period, tasks in flight at their worst-case cost until they settle',
          },
          resets_at: TIME,
        },
        required: ['scope', 'period', 'period_id', 'amount', 'spent', 'resets_at'],
        additionalProperties: false,
      },
    },
  },
  required: ['app_id', 'currency', 'data'],
  additionalProperties: false,
} as const;

/** One side of a call as kept: JSON text, data URLs and long base64 replaced by their size, cut at 65,536 characters. */
const KEPT_BODY_VIEW = exact({
  body: { type: 'string', description: 'JSON text; when truncated, its first 65,536 characters' },
  chars: { type: 'integer', description: 'Characters of the whole body, images already replaced' },
  truncated: { type: 'boolean' },
} as const);

/** GET /console/api/applications/{id}/tasks/{taskId}/bodies: a task's kept request and response. */
export const TASK_BODIES_SCHEMA = exact({
  task_id: STRING,
  app_id: STRING,
  request: KEPT_BODY_VIEW,
  response: KEPT_BODY_VIEW,
  created_at: TIME,
  expires_at: { type: 'string', description: 'ISO 8601, UTC: when the bodies are deleted' },
} as const);

export type SessionUser = FromSchema<typeof SESSION_USER_SCHEMA>;
export type SignedIn = FromSchema<typeof SIGNED_IN_SCHEMA>;
export type SessionState = FromSchema<typeof SESSION_STATE_SCHEMA>;
export type SignUpAccepted = FromSchema<typeof SIGN_UP_ACCEPTED_SCHEMA>;
export type ApiKeyView = FromSchema<typeof API_KEY_VIEW_SCHEMA>;
export type ApiKeyList = FromSchema<typeof API_KEY_LIST_SCHEMA>;
export type IssuedApiKey = FromSchema<typeof ISSUED_API_KEY_SCHEMA>;
export type ApplicationView = FromSchema<typeof APPLICATION_VIEW_SCHEMA>;
export type ApplicationListItem = FromSchema<typeof APPLICATION_LIST_SCHEMA>['data'][number];
export type Credentials = FromSchema<typeof CREDENTIALS_SCHEMA>;
export type IssuedApplication = FromSchema<typeof ISSUED_APPLICATION_SCHEMA>;
export type UsageTotals = FromSchema<typeof USAGE_TOTALS_SCHEMA>;
export type UsageSeries = FromSchema<typeof USAGE_SERIES_SCHEMA>;
export type AccountUsage = FromSchema<typeof ACCOUNT_USAGE_SCHEMA>;
export type CatalogModelView = FromSchema<typeof CATALOG_MODEL_VIEW_SCHEMA>;
export type CatalogModelList = FromSchema<typeof CATALOG_MODEL_LIST_SCHEMA>;
export type BillingRecordView = FromSchema<typeof BILLING_RECORD_VIEW_SCHEMA>;
export type WebhookDeliveryView = FromSchema<typeof WEBHOOK_DELIVERY_VIEW_SCHEMA>;
export type TaskView = FromSchema<typeof TASK_VIEW_SCHEMA>;
export type AccountTaskView = FromSchema<typeof ACCOUNT_TASK_VIEW_SCHEMA>;
export type RefusedCallView = FromSchema<typeof REFUSED_CALL_VIEW_SCHEMA>;
export type RefusedCallPage = FromSchema<typeof REFUSED_CALL_PAGE_SCHEMA>;
export type AccountView = FromSchema<typeof ACCOUNT_LIST_SCHEMA>['data'][number];
export type OperatorApplicationView = FromSchema<typeof OPERATOR_APPLICATION_LIST_SCHEMA>['data'][number];
export type QueueState = FromSchema<typeof QUEUE_STATES_SCHEMA>['data'][number];
export type FailedJob = FromSchema<typeof FAILED_JOBS_SCHEMA>['data'][number];
export type Invitation = FromSchema<typeof INVITATION_SCHEMA>;
export type InvitationListView = FromSchema<typeof INVITATION_LIST_SCHEMA>;
export type OperatorApplicationPage = FromSchema<typeof OPERATOR_APPLICATION_LIST_SCHEMA>;
export type SignupPolicy = FromSchema<typeof SIGNUP_POLICY_SCHEMA>;
export type UserUsage = FromSchema<typeof USER_USAGE_SCHEMA>;
export type AuditRecordView = FromSchema<typeof AUDIT_RECORD_VIEW_SCHEMA>;
export type BudgetState = FromSchema<typeof BUDGET_STATE_SCHEMA>;
export type TaskBodies = FromSchema<typeof TASK_BODIES_SCHEMA>;
