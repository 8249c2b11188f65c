/**
 * The bodies the api answers, as JSON Schema (2020-12, the dialect of OpenAPI 3.1): the components of the OpenAPI
 * document (openapi-document.ts) that no DTO class describes. The e2e suites check every answer they receive against
 * them (test/helpers/contract.ts), so a shape written here that the code does not answer fails a test.
 */
import {
  ACCOUNT_LIST_SCHEMA,
  ACCOUNT_VIEW_SCHEMA,
  APPLICATION_LIST_SCHEMA,
  APPLICATION_VIEW_SCHEMA,
  AUDIT_PAGE_SCHEMA,
  BILLING_RECORD_VIEW_SCHEMA,
  BUDGET_STATE_SCHEMA,
  CREDENTIALS_SCHEMA,
  API_KEY_VIEW_SCHEMA,
  API_KEY_LIST_SCHEMA,
  ISSUED_API_KEY_SCHEMA,
  FAILED_JOBS_SCHEMA,
  INVITATION_LIST_SCHEMA,
  INVITATION_REVOKED_SCHEMA,
  INVITATION_SCHEMA,
  ISSUED_APPLICATION_SCHEMA,
  JOB_RETRY_SCHEMA,
  OPERATOR_APPLICATION_LIST_SCHEMA,
  pageSchema,
  QUEUE_STATES_SCHEMA,
  REDELIVERY_SCHEMA,
  REFUSED_CALL_PAGE_SCHEMA,
  SIGN_UP_ACCEPTED_SCHEMA,
  SIGNUP_POLICY_SCHEMA,
  SIGNED_IN_SCHEMA,
  SESSION_STATE_SCHEMA,
  TASK_BODIES_SCHEMA,
  TASK_VIEW_SCHEMA,
  ACCOUNT_TASK_PAGE_SCHEMA,
  USAGE_SERIES_SCHEMA,
  ACCOUNT_USAGE_SCHEMA,
  CATALOG_MODEL_LIST_SCHEMA,
  USER_USAGE_SCHEMA,
  WEBHOOK_DELIVERY_VIEW_SCHEMA,
} from '@gateway/contracts';

export type JsonSchema = Record<string, unknown>;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const STRING = { type: 'string' } as const;
const INTEGER = { type: 'integer' } as const;
const NUMBER = { type: 'number' } as const;
const BOOLEAN = { type: 'boolean' } as const;
const UNIX_SECONDS = { type: 'integer', description: 'Unix seconds' } as const;

/** An object whose listed properties are all present; other properties may follow. */
function object(properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
  };
}

const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

const TOKEN_USAGE = object({ prompt_tokens: INTEGER, total_tokens: INTEGER }, []);

const ERROR_OBJECT = object(
  { code: STRING, message: STRING, param: nullable(STRING), type: STRING, details: { type: 'object' } },
  ['details'],
);

const CHAT_TOOL_CALL = object({
  id: STRING,
  type: { const: 'function' },
  function: object({ name: STRING, arguments: STRING }),
});

export const RESPONSE_SCHEMAS: Record<string, JsonSchema> = {
  ErrorEnvelope: {
    ...object({ error: ERROR_OBJECT, request_id: STRING }),
    description:
      'Every non-2xx answer. `code` fixes the status and `type`; a 504 Timeout adds `task_id`, a 500 UpstreamError raised by the router `provider_ms`.',
  },
  TaskAccepted: {
    ...object({ task_id: { type: 'string', pattern: '^task_[0-9A-Za-z]{22}$' }, status: { const: 'queued' } }),
    description: '`X-Async: enable`: the task is queued; read it with GET /v1/tasks/{id}.',
  },
  EmbeddingsResponse: object({
    object: { const: 'list' },
    data: arrayOf(
      object({
        object: { const: 'embedding' },
        index: INTEGER,
        embedding: { anyOf: [arrayOf(NUMBER), { type: 'string', description: 'base64 of little-endian float32' }] },
      }),
    ),
    model: STRING,
    usage: TOKEN_USAGE,
  }),
  ChatCompletion: object({
    id: STRING,
    object: { const: 'chat.completion' },
    created: UNIX_SECONDS,
    model: STRING,
    choices: arrayOf(
      object({
        index: INTEGER,
        message: object(
          {
            role: { const: 'assistant' },
            content: nullable(STRING),
            refusal: nullable(STRING),
            tool_calls: arrayOf(CHAT_TOOL_CALL),
          },
          ['refusal', 'tool_calls'],
        ),
        finish_reason: STRING,
        logprobs: nullable({ type: 'object' }),
      }),
    ),
    usage: object({ prompt_tokens: INTEGER, completion_tokens: INTEGER, total_tokens: INTEGER }),
    system_fingerprint: nullable(STRING),
  }),
  ChatCompletionStream: {
    type: 'string',
    description:
      'Server-sent events: `data: <chat.completion.chunk JSON>` per chunk (`x-sse-data`), the usage chunk with `stream_options.include_usage`, then `data: [DONE]`. A failure after the first chunk is one `data: {"error": …}` event in the envelope\'s `error` shape.',
    'x-sse-data': ref('ChatCompletionChunk'),
  },
  ChatCompletionChunk: object(
    {
      id: STRING,
      object: { const: 'chat.completion.chunk' },
      created: UNIX_SECONDS,
      model: STRING,
      choices: arrayOf(
        object(
          {
            index: INTEGER,
            delta: object(
              { role: { const: 'assistant' }, content: nullable(STRING), tool_calls: arrayOf({ type: 'object' }) },
              ['role', 'content', 'tool_calls'],
            ),
            finish_reason: nullable(STRING),
          },
          ['finish_reason'],
        ),
      ),
      usage: nullable(object({ prompt_tokens: INTEGER, completion_tokens: INTEGER, total_tokens: INTEGER })),
    },
    ['usage'],
  ),
  ResponseObject: object({
    id: { type: 'string', pattern: '^resp_[0-9A-Za-z]{22}$' },
    object: { const: 'response' },
    created_at: UNIX_SECONDS,
    status: { enum: ['completed', 'incomplete', 'failed', 'cancelled', 'queued', 'in_progress'] },
    error: nullable(object({ code: STRING, message: STRING })),
    incomplete_details: nullable(object({ reason: STRING })),
    model: STRING,
    output: arrayOf(object({ type: { enum: ['message', 'function_call'] }, id: STRING })),
    usage: nullable(object({ input_tokens: INTEGER, output_tokens: INTEGER, total_tokens: INTEGER }, [])),
  }),
  ResponseStream: {
    type: 'string',
    description:
      "Server-sent events in OpenAI's Responses dialect: `event: <type>` and `data: <JSON>` per event (`x-sse-data`), from `response.created` to `response.completed` (or `response.incomplete`; an `error` event for a stream that breaks after it started), each with its `sequence_number`.",
    'x-sse-data': ref('ResponseStreamEvent'),
  },
  ResponseStreamEvent: object({
    type: {
      enum: [
        'response.queued',
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.output_item.done',
        'response.content_part.added',
        'response.content_part.done',
        'response.output_text.delta',
        'response.output_text.done',
        'response.refusal.delta',
        'response.refusal.done',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.reasoning_summary_text.delta',
        'response.completed',
        'response.incomplete',
        'error',
      ],
    },
    sequence_number: INTEGER,
  }),
  ImageEditResponse: object({
    created: UNIX_SECONDS,
    data: arrayOf(object({ url: STRING, revised_prompt: STRING }, ['revised_prompt'])),
    usage: object({ image_count: INTEGER, failed_count: INTEGER }, ['failed_count']),
  }),
  Model: object(
    {
      id: STRING,
      object: { const: 'model' },
      created: UNIX_SECONDS,
      owned_by: STRING,
      capability: STRING,
      available: BOOLEAN,
      family: STRING,
      deprecated: STRING,
      alias_of: STRING,
      limits: { type: 'object' },
      features: arrayOf(STRING),
      routes: arrayOf(
        object({ provider: STRING, features: arrayOf(STRING), responses: { const: true } }, ['responses']),
      ),
    },
    ['family', 'deprecated', 'alias_of', 'features', 'routes'],
  ),
  ModelList: object({ object: { const: 'list' }, data: arrayOf(ref('Model')) }),
  Task: object(
    {
      id: STRING,
      object: { const: 'task' },
      status: { enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] },
      endpoint: STRING,
      model: STRING,
      resolved_model: STRING,
      route: nullable(STRING),
      created_at: nullable(UNIX_SECONDS),
      started_at: nullable(UNIX_SECONDS),
      finished_at: nullable(UNIX_SECONDS),
      usage: nullable({ type: 'object' }),
      cost: nullable(NUMBER),
      result: {
        description: "The endpoint's answer, as the synchronous call gave it; null until succeeded or once expired.",
      },
      result_expired: BOOLEAN,
      error: nullable({ ...ERROR_OBJECT, properties: { ...(ERROR_OBJECT.properties as object), status: INTEGER } }),
    },
    ['route', 'started_at', 'finished_at', 'usage', 'cost', 'result', 'result_expired', 'error'],
  ),
  ConsoleSession: SIGNED_IN_SCHEMA,
  ConsoleSessionState: SESSION_STATE_SCHEMA,
  RegistrationAccepted: SIGN_UP_ACCEPTED_SCHEMA,
  Application: APPLICATION_VIEW_SCHEMA,
  ApplicationList: APPLICATION_LIST_SCHEMA,
  IssuedApplication: {
    ...ISSUED_APPLICATION_SCHEMA,
    description: 'The new application with its credentials; the API key and Secret Key are shown only here.',
  },
  Credentials: { ...CREDENTIALS_SCHEMA, description: 'A new API key or Secret Key, shown only in this answer.' },
  ApiKey: API_KEY_VIEW_SCHEMA,
  ApiKeyList: API_KEY_LIST_SCHEMA,
  IssuedApiKey: { ...ISSUED_API_KEY_SCHEMA, description: 'The new key, shown only in this answer.' },
  WebhookDeliveryPage: pageSchema(WEBHOOK_DELIVERY_VIEW_SCHEMA),
  TaskPage: pageSchema(TASK_VIEW_SCHEMA),
  AccountTaskPage: ACCOUNT_TASK_PAGE_SCHEMA,
  TaskBodies: TASK_BODIES_SCHEMA,
  RefusedCallPage: REFUSED_CALL_PAGE_SCHEMA,
  BillingPage: pageSchema(BILLING_RECORD_VIEW_SCHEMA),
  BudgetState: BUDGET_STATE_SCHEMA,
  AuditPage: AUDIT_PAGE_SCHEMA,
  Redelivery: REDELIVERY_SCHEMA,
  UsageSeries: USAGE_SERIES_SCHEMA,
  AccountUsage: ACCOUNT_USAGE_SCHEMA,
  ConsoleModelList: CATALOG_MODEL_LIST_SCHEMA,
  UserList: ACCOUNT_LIST_SCHEMA,
  Account: ACCOUNT_VIEW_SCHEMA,
  OperatorApplicationList: OPERATOR_APPLICATION_LIST_SCHEMA,
  QueueStates: QUEUE_STATES_SCHEMA,
  FailedJobs: FAILED_JOBS_SCHEMA,
  JobRetry: JOB_RETRY_SCHEMA,
  Invitation: INVITATION_SCHEMA,
  InvitationList: INVITATION_LIST_SCHEMA,
  InvitationRevoked: INVITATION_REVOKED_SCHEMA,
  SignupPolicy: SIGNUP_POLICY_SCHEMA,
  UserUsage: USER_USAGE_SCHEMA,
  OpenApiDocument: { type: 'object', description: 'This document.' },
};
