import { ErrorCode } from '@gateway/common';
import { CHAT_REQUEST_SCHEMA } from '../v1/chat/chat-request.schema';
import { RESPONSES_REQUEST_SCHEMA } from '../v1/responses/responses-request.schema';
import { JsonSchema } from './response-schemas';

/**
 * What the routes' code cannot say of itself: each controller method's summary, the schema of what it answers and
 * the error codes of its own. Paths, methods, status codes, path parameters, DTO request bodies and security come
 * from the controllers (openapi-document.ts), and a route missing here stops the document from building.
 */
export interface OperationDoc {
  summary: string;
  tag: 'Embeddings' | 'Chat' | 'Responses' | 'Images' | 'Files' | 'Models' | 'Tasks' | 'Console' | 'Operators' | 'Docs';
  description?: string;
  /** The body's schema, for a route that takes `@Body() body: unknown` rather than a DTO class. */
  requestBody?: JsonSchema;
  /** Query parameters read from a `@Query()` record rather than a DTO class. */
  query?: QueryParameter[];
  /** Components of RESPONSE_SCHEMAS by success status; a route that answers a file gives a media type instead. */
  success: Record<number, string | { contentType: string; description: string }>;
  /** A task POST: `X-Async`, `Idempotency-Key`, the 202 of an asynchronous call and the task's limits and errors. */
  task?: { stream?: string };
  errors?: ErrorCode[];
  /**
   * OpenAPI links of its JSON success answers: what the answer lets a client call next, by OPERATION_DOCS key and
   * runtime expressions (schemathesis's stateful phase follows them). A task's 202 links to its task by itself.
   */
  links?: Record<string, { operation: string; parameters: Record<string, string> }>;
  /** Served without credentials. */
  public?: true;
}

export interface QueryParameter {
  name: string;
  description: string;
  schema: JsonSchema;
}

const DAY = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const DAY_RANGE: QueryParameter[] = [
  { name: 'from', description: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`).', schema: DAY },
  { name: 'to', description: 'Last UTC day, YYYY-MM-DD (default: today); at most 366 days in all.', schema: DAY },
];
const LISTING: QueryParameter[] = [
  ...DAY_RANGE,
  { name: 'limit', description: 'Records per page.', schema: { type: 'integer', minimum: 1, maximum: 200 } },
  {
    name: 'cursor',
    description: 'The `next` of the previous page.',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  },
];

const REFUSAL_PAGING: QueryParameter[] = [
  { name: 'limit', description: 'Refusals per page.', schema: { type: 'integer', minimum: 1, maximum: 200 } },
  {
    name: 'offset',
    description: 'Refusals to skip, newest first.',
    schema: { type: 'integer', minimum: 0, maximum: 1000 },
  },
];

const MODEL_FILTER: QueryParameter = {
  name: 'model',
  description: 'Only calls to this model id, as requested.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9][\\w.:/@+-]{0,199}$' },
};
const CODE_FILTER: QueryParameter = {
  name: 'code',
  description: 'Only calls answered with this error code.',
  schema: { type: 'string', pattern: '^[A-Z][A-Za-z0-9]{1,63}$' },
};
const KEY_FILTER: QueryParameter = {
  name: 'key_id',
  description: 'Only calls made with this API key (`signature`: signed requests).',
  schema: { type: 'string', pattern: '^(key_[0-9A-Za-z]{1,40}|signature)$' },
};
const MODE_FILTER: QueryParameter = {
  name: 'mode',
  description: '`async`: only calls with `X-Async: enable`; `sync`: only the others.',
  schema: { type: 'string', enum: ['sync', 'async'] },
};
/** One of these at a time: each is a feed of its own, read by index. */
const TASK_FILTERS: QueryParameter[] = [
  MODEL_FILTER,
  {
    name: 'status',
    description: 'Only tasks that ended so.',
    schema: { type: 'string', enum: ['succeeded', 'failed', 'cancelled'] },
  },
  { ...CODE_FILTER, description: 'Only tasks that failed with this error code.' },
  KEY_FILTER,
  MODE_FILTER,
];
/** Any of these together, applied to the capped list in memory. */
const REFUSAL_FILTERS: QueryParameter[] = [
  { ...DAY_RANGE[0], description: 'First UTC day, YYYY-MM-DD.' },
  { ...DAY_RANGE[1], description: 'Last UTC day, YYYY-MM-DD.' },
  MODEL_FILTER,
  CODE_FILTER,
  {
    name: 'status',
    description: 'Only refusals with this HTTP status.',
    schema: { type: 'integer', minimum: 400, maximum: 499 },
  },
  KEY_FILTER,
  MODE_FILTER,
];

const REQUESTS_EXPORT: QueryParameter[] = [
  ...DAY_RANGE,
  ...TASK_FILTERS,
  {
    name: 'calls',
    description:
      '`all` (default), `tasks` (the calls that became tasks) or `refused` (those refused before the queue).',
    schema: { type: 'string', enum: ['all', 'tasks', 'refused'] },
  },
];
const REQUESTS_CSV = {
  contentType: 'text/csv',
  description:
    'One row per call, newest first per application: its tasks, then its refused calls (kind, app, time, task and request ids, endpoint, model, status, error code and message, key, mode, latency, tokens in and out, images, cost, currency).',
};

const IMAGE_FILE = {
  contentType: 'image/png',
  description: 'The generated image, cacheable until the URL expires.',
};

const USAGE_CSV = {
  contentType: 'text/csv',
  description:
    'One row per application, day and model: calls, errors, prompt and completion tokens, images, cost (exact decimal), currency, latency p50/p95 (bucket bounds, ms).',
};

export const OPERATION_DOCS: Record<string, OperationDoc> = {
  'EmbeddingsController.create': {
    tag: 'Embeddings',
    summary: 'Create embeddings',
    description: "OpenAI's Embeddings API: a string, a list of strings, a token list or a list of token lists.",
    success: { 200: 'EmbeddingsResponse' },
    task: {},
  },
  'ChatController.create': {
    tag: 'Chat',
    summary: 'Create a chat completion',
    description: "OpenAI's Chat Completions API; `stream: true` answers server-sent events.",
    requestBody: CHAT_REQUEST_SCHEMA,
    success: { 200: 'ChatCompletion' },
    task: { stream: 'ChatCompletionStream' },
  },
  'ResponsesController.create': {
    tag: 'Responses',
    summary: 'Create a response',
    description: "OpenAI's Responses API, answered by a chat task; `stream: true` answers server-sent events.",
    requestBody: RESPONSES_REQUEST_SCHEMA,
    success: { 200: 'ResponseObject' },
    task: { stream: 'ResponseStream' },
    links: { ReadTheResponse: { operation: 'ResponsesController.get', parameters: { id: '$response.body#/id' } } },
  },
  'ResponsesController.get': {
    tag: 'Responses',
    summary: 'Retrieve a stored response',
    success: { 200: 'ResponseObject' },
    errors: ['NotFound'],
  },
  'ImageEditController.create': {
    tag: 'Images',
    summary: 'Edit images',
    description: 'One to three images and a prompt; the answer links each generated image by a signed URL.',
    success: { 200: 'ImageEditResponse' },
    task: {},
    errors: ['InvalidImage'],
  },
  'FilesController.download': {
    tag: 'Files',
    summary: 'Download a generated image',
    description: 'The signed URL is the credential: no API key.',
    query: [
      { name: 'exp', description: 'Expiry, Unix seconds.', schema: { type: 'string' } },
      { name: 'sig', description: 'The URL signature.', schema: { type: 'string' } },
    ],
    success: { 200: IMAGE_FILE },
    errors: ['InvalidUrlSignature', 'UrlExpired'],
    public: true,
  },
  'ModelsController.list': { tag: 'Models', summary: 'List models and aliases', success: { 200: 'ModelList' } },
  'ModelsController.retrieve': {
    tag: 'Models',
    summary: 'Retrieve a model',
    success: { 200: 'Model' },
    errors: ['NotFound'],
  },
  'TasksController.get': {
    tag: 'Tasks',
    summary: 'Retrieve a task',
    description: 'Its state while queued or running; its record, result and `X-Gateway-Route` once final.',
    success: { 200: 'Task' },
    errors: ['NotFound'],
  },
  'ConsoleAuthController.register': {
    tag: 'Console',
    summary: 'Sign up',
    success: { 201: 'ConsoleSession', 202: 'RegistrationAccepted' },
    errors: ['WeakPassword', 'AlreadyExists', 'SignupClosed', 'InvalidInvitation', 'RateLimited'],
    public: true,
  },
  'ConsoleAuthController.login': {
    tag: 'Console',
    summary: 'Sign in',
    success: { 200: 'ConsoleSession' },
    errors: ['InvalidCredentials', 'AccountDisabled', 'RateLimited'],
    public: true,
  },
  'ConsoleAuthController.logout': { tag: 'Console', summary: 'Sign out', success: { 204: '' } },
  'ConsoleAuthController.me': {
    tag: 'Console',
    summary: 'The signed-in user, or `{ "user": null }` when signed out',
    success: { 200: 'ConsoleSessionState' },
    public: true,
  },
  'ConsoleAuditController.list': {
    tag: 'Console',
    summary: 'List audit records',
    query: [
      {
        name: 'app_id',
        description: 'One application.',
        schema: { type: 'string', pattern: '^app_[0-9A-Za-z]{1,40}$' },
      },
      { name: 'action', description: 'One action, e.g. application.update.', schema: { type: 'string' } },
      ...LISTING,
    ],
    success: { 200: 'AuditPage' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.list': {
    tag: 'Console',
    summary: 'List my applications',
    success: { 200: 'ApplicationList' },
  },
  'ConsoleApplicationsController.create': {
    tag: 'Console',
    summary: 'Create an application',
    success: { 201: 'IssuedApplication' },
    errors: ['ModelNotFound', 'CeilingExceeded'],
    links: {
      UseTheKey: {
        operation: 'EmbeddingsController.create',
        parameters: { 'header.Authorization': 'Bearer {$response.body#/credentials/api_key}' },
      },
      ReadTheApplication: { operation: 'ConsoleApplicationsController.get', parameters: { id: '$response.body#/id' } },
      UpdateTheApplication: {
        operation: 'ConsoleApplicationsController.update',
        parameters: { id: '$response.body#/id' },
      },
      RotateTheKey: { operation: 'ConsoleApplicationsController.rotate', parameters: { id: '$response.body#/id' } },
    },
  },
  'ConsoleApplicationsController.get': {
    tag: 'Console',
    summary: 'Retrieve an application',
    success: { 200: 'Application' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.update': {
    tag: 'Console',
    summary: 'Update an application',
    success: { 200: 'Application' },
    errors: ['ModelNotFound', 'NotFound', 'CeilingExceeded', 'ApplicationRevoked'],
  },
  'ConsoleApplicationsController.revoke': {
    tag: 'Console',
    summary: 'Revoke an application and its keys',
    success: { 200: 'Application' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.rotate': {
    tag: 'Console',
    summary: 'Rotate the API keys, or one of them',
    description:
      'Without key_id, every live key of the application is replaced by one new key named "default"; with it, only that key, by a key of the same name and expiry. Those replaced keep working for grace_seconds (never past their own expiry), or stop at once.',
    success: { 200: 'Credentials' },
    errors: ['NotFound', 'ApplicationRevoked'],
  },
  'ConsoleApplicationsController.keys': {
    tag: 'Console',
    summary: 'List the API keys',
    success: { 200: 'ApiKeyList' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.createKey': {
    tag: 'Console',
    summary: 'Create a named API key',
    description: 'At most 20 live keys per application. The key is in this answer only.',
    success: { 201: 'IssuedApiKey' },
    errors: ['NotFound', 'CeilingExceeded'],
  },
  'ConsoleApplicationsController.revokeKey': {
    tag: 'Console',
    summary: 'Revoke one API key',
    description: 'Refused on /v1 by every api instance within AUTH_CACHE_TTL_MS; the other keys keep working.',
    success: { 200: 'ApiKey' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.webhooks': {
    tag: 'Console',
    summary: 'List webhook delivery attempts',
    query: LISTING,
    success: { 200: 'WebhookDeliveryPage' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.tasks': {
    tag: 'Console',
    summary: 'List finished tasks',
    description:
      'Newest first; one filter at a time (`model`, `status`, `code`, `key_id` or `mode`) within the day range. ' +
      'Only tasks recorded since the filters exist are listed under them.',
    query: [...LISTING, ...TASK_FILTERS],
    success: { 200: 'TaskPage' },
    errors: ['NotFound'],
  },
  'ConsoleTaskBodiesController.get': {
    tag: 'Console',
    summary: "A task's request and response bodies",
    description:
      'Kept only while the application has log_bodies on, for body_retention_days (1–30). Each body is JSON text ' +
      'with data URLs and long base64 strings (images) replaced by their size, cut at 65,536 characters. 404 when ' +
      'the application is not yours, or no bodies are kept for the task.',
    success: { 200: 'TaskBodies' },
    errors: ['NotFound'],
  },
  'ConsoleRequestsController.forApplication': {
    tag: 'Console',
    summary: 'List calls refused before the queue',
    description:
      'The newest refusals (400, 401 with a known caller, 403, 429, …), which have no task; each application keeps ' +
      'its last 1,000 for 7 days, and `not_listed` counts those dropped.',
    query: [...REFUSAL_PAGING, ...REFUSAL_FILTERS],
    success: { 200: 'RefusedCallPage' },
    errors: ['NotFound'],
  },
  'ConsoleRequestsController.accountTasks': {
    tag: 'Console',
    summary: 'List the tasks of every application of the account',
    description:
      'Newest first within the day range; filters are per application (`GET …/applications/{id}/tasks`). Tasks ' +
      'recorded before the account listing existed are listed only per application.',
    query: LISTING,
    success: { 200: 'AccountTaskPage' },
  },
  'ConsoleRequestsController.forAccount': {
    tag: 'Console',
    summary: "List calls refused before the queue, across the account's applications",
    query: [REFUSAL_PAGING[0], ...REFUSAL_FILTERS],
    success: { 200: 'RefusedCallPage' },
  },
  'ConsoleRequestsController.exportApplication': {
    tag: 'Console',
    summary: "Export the application's requests as CSV",
    description:
      'Streamed; the filter as the tasks listing takes it (one at a time), applied to the refused calls too. A `status` filter leaves the refused calls out.',
    query: REQUESTS_EXPORT,
    success: { 200: REQUESTS_CSV },
    errors: ['NotFound'],
  },
  'ConsoleRequestsController.exportAccount': {
    tag: 'Console',
    summary: 'Export the requests of every application of the account as CSV',
    query: REQUESTS_EXPORT,
    success: { 200: REQUESTS_CSV },
  },
  'ConsoleApplicationsController.billing': {
    tag: 'Console',
    summary: 'List billing records',
    query: LISTING,
    success: { 200: 'BillingPage' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.budget': {
    tag: 'Console',
    summary: "The application's budget and its owner's, spent so far in the current period",
    success: { 200: 'BudgetState' },
    errors: ['NotFound'],
  },
  'ConsoleApplicationsController.redeliver': {
    tag: 'Console',
    summary: 'Redeliver a webhook',
    success: { 202: 'Redelivery' },
    errors: ['NotFound', 'InvalidParameter'],
  },
  'ConsoleApplicationsController.resetSecret': {
    tag: 'Console',
    summary: 'Reset the Secret Key',
    success: { 200: 'Credentials' },
    errors: ['NotFound', 'ApplicationRevoked'],
  },
  'ConsoleUsageController.series': {
    tag: 'Console',
    summary: 'Usage per day and model',
    query: DAY_RANGE,
    success: { 200: 'UsageSeries' },
    errors: ['NotFound'],
  },
  'ConsoleUsageController.export': {
    tag: 'Console',
    summary: 'Usage per day and model as CSV',
    query: DAY_RANGE,
    success: { 200: USAGE_CSV },
    errors: ['NotFound'],
  },
  'ConsoleAccountUsageController.account': {
    tag: 'Console',
    summary: 'Usage of every application of the account',
    query: DAY_RANGE,
    success: { 200: 'AccountUsage' },
  },
  'ConsoleAccountUsageController.export': {
    tag: 'Console',
    summary: 'Usage of every application as CSV',
    query: DAY_RANGE,
    success: { 200: USAGE_CSV },
  },
  'ConsoleModelsController.list': {
    tag: 'Console',
    summary: 'The catalog with prices',
    success: { 200: 'ConsoleModelList' },
  },
  'ConsoleOperatorsController.users': { tag: 'Operators', summary: 'List accounts', success: { 200: 'UserList' } },
  'ConsoleOperatorsController.updateUser': {
    tag: 'Operators',
    summary: 'Disable, enable, change the role or ceilings of an account',
    success: { 200: 'Account' },
    errors: ['NotFound', 'LastOperator'],
  },
  'ConsoleOperatorsController.applications': {
    tag: 'Operators',
    summary: "Every account's applications with their owner, a page at a time",
    success: { 200: 'OperatorApplicationList' },
  },
  'ConsoleOperatorsController.userUsage': {
    tag: 'Operators',
    summary: "An account's usage, in total and per application",
    success: { 200: 'UserUsage' },
    errors: ['NotFound'],
  },
  'ConsoleOperatorsController.signupPolicy': {
    tag: 'Operators',
    summary: 'Who may create an account (CONSOLE_SIGNUP)',
    success: { 200: 'SignupPolicy' },
  },
  'ConsoleOperatorsController.invitations': {
    tag: 'Operators',
    summary: 'List the unused invitations',
    success: { 200: 'InvitationList' },
  },
  'ConsoleOperatorsController.revokeInvitation': {
    tag: 'Operators',
    summary: 'Revoke an unused invitation',
    success: { 200: 'InvitationRevoked' },
    errors: ['NotFound'],
  },
  'ConsoleOperatorsController.queueStates': {
    tag: 'Operators',
    summary: 'Queue states',
    success: { 200: 'QueueStates' },
  },
  'ConsoleOperatorsController.failedJobs': {
    tag: 'Operators',
    summary: "A queue's failed jobs",
    success: { 200: 'FailedJobs' },
    errors: ['NotFound'],
  },
  'ConsoleOperatorsController.retry': {
    tag: 'Operators',
    summary: 'Retry a failed job',
    success: { 202: 'JobRetry' },
    errors: ['NotFound'],
  },
  'ConsoleOperatorsController.invite': {
    tag: 'Operators',
    summary: 'Create a sign-up invitation',
    success: { 201: 'Invitation' },
  },
  'OpenApiController.document': {
    tag: 'Docs',
    summary: 'This OpenAPI document',
    success: { 200: 'OpenApiDocument' },
    public: true,
  },
};
