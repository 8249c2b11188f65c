import { ERROR_CODES, ErrorCode } from '@gateway/common';
import { ApiAuthGuard } from '@gateway/tenancy';
import { RequestMethod, Type } from '@nestjs/common';
import {
  GUARDS_METADATA,
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ConsoleSessionGuard } from '../console/auth/console-session.guard';
import { OperatorGuard } from '../console/auth/operator.guard';
import { dtoSchemas, SCHEMA_REF_PREFIX } from './dto-schemas';
import { OPERATION_DOCS, OperationDoc } from './operation-docs';
import { JsonSchema, RESPONSE_SCHEMAS } from './response-schemas';

/** A controller that serves no API operation (the reference page), left out of the document. */
export const UNDOCUMENTED = 'gateway:undocumented';

export type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, Operation>> } & JsonSchema;
type Operation = JsonSchema & { responses: Record<string, JsonSchema> };

/** The API's surfaces; the operations endpoints (health, metrics) are not part of the contract. */
const DOCUMENTED_PREFIXES = ['/v1/', '/console/api/'];

/** Every route can be refused these before or outside its own code (docs/contracts.md, error envelope). */
const ANY_ROUTE: ErrorCode[] = [
  'InvalidParameter',
  'RequestTimeout',
  'PayloadTooLarge',
  'UriTooLong',
  'HeadersTooLarge',
  'InternalError',
];
const API_AUTH: ErrorCode[] = [
  'MissingAuthorization',
  'InvalidApiKey',
  'InvalidSignature',
  'ExpiredTimestamp',
  'IpNotAllowed',
  'RateLimited',
  'NotReady',
];
const TASK: ErrorCode[] = [
  'ModelNotFound',
  'UnsupportedParameter',
  'IdempotencyKeyReused',
  'ContentRejected',
  'ScopeDenied',
  'RateLimited',
  'DailyLimitExceeded',
  'QuotaExceeded',
  'BudgetExceeded',
  'UpstreamError',
  'Timeout',
];

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });
const HEADERS = {
  'X-Request-Id': header("The request id, `req_` + 22 base62 characters; equals the envelope's `request_id`."),
  'X-Task-Id': header('The task id, `task_` + 22 base62 characters.'),
  'X-Gateway-Route': header('The catalog route that served: `<upstream>:<model>` or `local:<model>`.'),
  'X-Gateway-Overhead-Ms': header('Milliseconds from accept to response minus the time inside provider calls.'),
  'Idempotent-Replayed': header("`true` when the answer is the first request's, replayed by `Idempotency-Key`."),
  'Retry-After': header('Seconds to wait before trying again.', { type: 'string', pattern: '^\\d+$' }),
  'X-RateLimit-Limit-Requests': header("The application's daily call limit, when it has one."),
  'X-RateLimit-Remaining-Requests': header('Calls left today.'),
  'X-RateLimit-Reset-Requests': header('Seconds to 00:00 UTC, written `<n>s`.'),
};
type HeaderName = keyof typeof HEADERS;
const RATE_LIMIT_HEADERS: HeaderName[] = [
  'X-RateLimit-Limit-Requests',
  'X-RateLimit-Remaining-Requests',
  'X-RateLimit-Reset-Requests',
];

const SECURITY_SCHEMES = {
  ApiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' },
  AppId: { type: 'apiKey', in: 'header', name: 'X-App-Id', description: 'A signed request: the App ID.' },
  Timestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'Unix seconds, within 300 s.' },
  Nonce: { type: 'apiKey', in: 'header', name: 'X-Nonce', description: 'Used once within 600 s.' },
  Signature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Signature',
    description: 'HMAC-SHA256 under the Secret Key of the method, path, timestamp, nonce and body (README).',
  },
  ConsoleSession: { type: 'apiKey', in: 'cookie', name: 'gw_session', description: 'The console session.' },
  CsrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: "The session's `csrf_token`, on every console request that changes something.",
  },
};

const METHODS: Partial<Record<RequestMethod, string>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PUT]: 'put',
};

/**
 * The OpenAPI 3.1 document of the api's controllers: paths, methods, status codes, parameters, DTO bodies and
 * security read from Nest's route metadata, what the code cannot say from OPERATION_DOCS. Built once per process.
 */
export function buildOpenApiDocument(controllers: Type[], version: string): OpenApiDocument {
  const dtos = dtoSchemas();
  const paths: Record<string, Record<string, Operation>> = {};
  for (const controller of controllers) {
    if (Reflect.getMetadata(UNDOCUMENTED, controller)) continue;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const path = routePath(controller, handler);
      if (!DOCUMENTED_PREFIXES.some((prefix) => path.startsWith(prefix))) continue;
      const verb = METHODS[method];
      if (!verb) throw new Error(`${controller.name}.${name}: unsupported method ${method}`);
      const key = `${controller.name}.${name}`;
      const doc = OPERATION_DOCS[key];
      if (!doc) throw new Error(`${key} (${verb.toUpperCase()} ${path}) has no entry in OPERATION_DOCS`);
      (paths[path] ??= {})[verb] = operation(controller, name, handler, { key, verb, path, doc }, dtos);
    }
  }
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Model Gateway',
      version,
      description:
        'AI models behind one `/v1` API (OpenAI-compatible Embeddings, Chat Completions and Responses, DashScope-style image edits) and the console API. Every non-2xx answer is the error envelope; docs/contracts.md holds the prose.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [...new Set(Object.values(OPERATION_DOCS).map((doc) => doc.tag))].map((tag) => ({ name: tag })),
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, schemas: {} },
  };
  (document.components as { schemas: JsonSchema }).schemas = reachableSchemas(paths, { ...dtos, ...RESPONSE_SCHEMAS });
  return document;
}

interface Route {
  key: string;
  verb: string;
  path: string;
  doc: OperationDoc;
}

function operation(
  controller: Type,
  name: string,
  handler: object,
  route: Route,
  dtos: Record<string, JsonSchema>,
): Operation {
  const { doc, verb, key } = route;
  const guards = [
    ...((Reflect.getMetadata(GUARDS_METADATA, controller) as unknown[]) ?? []),
    ...((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[]) ?? []),
  ];
  const api = guards.includes(ApiAuthGuard);
  const consoleSession = guards.includes(ConsoleSessionGuard);
  if (!api && !consoleSession && !doc.public) throw new Error(`${key} has no guard; mark it public in OPERATION_DOCS`);
  if ((api || consoleSession) && doc.public) throw new Error(`${key} is guarded, yet OPERATION_DOCS calls it public`);
  const errors = new Set<ErrorCode>([...ANY_ROUTE, ...(doc.errors ?? [])]);
  let security: JsonSchema[] = [];
  if (api) {
    API_AUTH.forEach((code) => errors.add(code));
    security = [{ ApiKey: [] }, { AppId: [], Timestamp: [], Nonce: [], Signature: [] }];
  }
  if (consoleSession) {
    errors.add('MissingAuthorization');
    if (verb !== 'get') errors.add('CsrfRejected');
    security = [verb === 'get' ? { ConsoleSession: [] } : { ConsoleSession: [], CsrfToken: [] }];
  }
  if (guards.includes(OperatorGuard)) errors.add('OperatorOnly');
  if (doc.task) TASK.forEach((code) => errors.add(code));

  const args = routeArgs(controller, name);
  const parameters: JsonSchema[] = [...pathParameters(route.path), ...queryParameters(key, args, doc, dtos)];
  if (doc.task) {
    parameters.push(
      {
        name: 'X-Async',
        in: 'header',
        description: '`enable`: answer 202 with the task id at once. Not with `stream: true`.',
        schema: { enum: ['enable', 'disable'] },
      },
      {
        name: 'Idempotency-Key',
        in: 'header',
        description: 'Retries with the same key within 24 h replay the first answer. Not with `stream: true`.',
        schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
      },
    );
  }
  const body = args.find((arg) => arg.type === RouteParamtypes.BODY);
  let requestBody: JsonSchema | undefined;
  if (body) {
    const schema = doc.requestBody ?? (dtos[body.designType.name] ? schemaRef(body.designType.name) : undefined);
    if (!schema) throw new Error(`${key}: its @Body() is neither a DTO class nor given in OPERATION_DOCS`);
    requestBody = { required: true, content: { 'application/json': { schema } } };
  }

  const status =
    (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (verb === 'post' ? 201 : 200);
  if (!(status in doc.success)) throw new Error(`${key} answers ${status}, which OPERATION_DOCS does not describe`);
  const responses: Record<string, JsonSchema> = {};
  const onV1 = route.path.startsWith('/v1/');
  for (const [code, success] of Object.entries(doc.success)) {
    responses[code] = successResponse(success, doc, onV1, api);
    if (doc.links && typeof success === 'string' && success !== '') responses[code].links = links(doc.links);
  }
  if (doc.task) {
    responses['202'] = {
      description: 'Accepted (`X-Async: enable`).',
      headers: headers(
        ['X-Request-Id', 'X-Task-Id', 'X-Gateway-Overhead-Ms', 'Idempotent-Replayed', ...RATE_LIMIT_HEADERS],
        ['X-Request-Id', 'X-Task-Id'],
      ),
      content: { 'application/json': { schema: schemaRef('TaskAccepted') } },
      links: links({
        ReadTheTask: { operation: 'TasksController.get', parameters: { id: '$response.body#/task_id' } },
      }),
    };
  }
  for (const [code, codes] of byStatus(errors)) {
    const retry = code === 429 || codes.includes('UpstreamError');
    responses[String(code)] = {
      description: codes.join(', '),
      headers: headers(
        ['X-Request-Id', ...(retry ? (['Retry-After'] as HeaderName[]) : [])],
        ['X-Request-Id', ...(code === 429 ? (['Retry-After'] as HeaderName[]) : [])],
      ),
      content: {
        'application/json': {
          schema: {
            allOf: [schemaRef('ErrorEnvelope'), { properties: { error: { properties: { code: { enum: codes } } } } }],
          },
        },
      },
    };
  }
  return {
    operationId: key.replace('.', '_'),
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    security,
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

function successResponse(
  success: OperationDoc['success'][number],
  doc: OperationDoc,
  onV1: boolean,
  api: boolean,
): JsonSchema {
  const names: HeaderName[] = ['X-Request-Id'];
  if (onV1) names.push('X-Gateway-Overhead-Ms');
  if (api) names.push(...RATE_LIMIT_HEADERS);
  const always: HeaderName[] = ['X-Request-Id'];
  if (doc.task) {
    names.push('X-Task-Id', 'Idempotent-Replayed');
    always.push('X-Task-Id');
  }
  // What served: on every embeddings, chat and Responses answer, and on a finished task read later.
  const routed = doc.task && doc.tag !== 'Images';
  if (routed || doc.tag === 'Tasks') names.push('X-Gateway-Route');
  if (routed) always.push('X-Gateway-Route');
  if (typeof success !== 'string')
    return {
      description: success.description,
      headers: headers(names, always),
      content: { [success.contentType]: { schema: { type: 'string', contentMediaType: success.contentType } } },
    };
  if (success === '') return { description: 'No content.', headers: headers(names, always) };
  const content: JsonSchema = { 'application/json': { schema: schemaRef(success) } };
  if (doc.task?.stream) content['text/event-stream'] = { schema: schemaRef(doc.task.stream) };
  return {
    description: doc.task?.stream ? 'The answer; with `stream: true`, server-sent events.' : 'OK.',
    headers: headers(names, always),
    content,
  };
}

interface RouteArg {
  type: RouteParamtypes;
  data: unknown;
  designType: Type;
}

interface RouteArgMetadata {
  index: number;
  data?: unknown;
}

function routeArgs(controller: Type, name: string): RouteArg[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, RouteArgMetadata>;
  const prototype = controller.prototype as object;
  const designTypes = (Reflect.getMetadata('design:paramtypes', prototype, name) ?? []) as Type[];
  return Object.entries(args).map(([slot, arg]) => ({
    type: Number(slot.split(':')[0]),
    data: arg.data,
    designType: designTypes[arg.index],
  }));
}

function routePath(controller: Type, handler: object): string {
  const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const own = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
  const joined = `/${[base, own]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  return joined.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParameters(path: string): JsonSchema[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', maxLength: 100 },
  }));
}

function queryParameters(
  key: string,
  args: RouteArg[],
  doc: OperationDoc,
  dtos: Record<string, JsonSchema>,
): JsonSchema[] {
  const queries = args.filter((arg) => arg.type === RouteParamtypes.QUERY);
  const parameters: JsonSchema[] = [];
  for (const query of queries) {
    const dto = dtos[query.designType?.name];
    if (typeof query.data === 'string') {
      if (!doc.query?.some((documented) => documented.name === query.data))
        parameters.push({ name: query.data, in: 'query', schema: { type: 'string' } });
    } else if (dto) {
      for (const [name, schema] of Object.entries((dto.properties ?? {}) as Record<string, JsonSchema>))
        parameters.push({ name, in: 'query', schema });
    } else if (!doc.query) {
      throw new Error(`${key}: its @Query() record has no query parameters in OPERATION_DOCS`);
    }
  }
  for (const documented of doc.query ?? []) parameters.push({ ...documented, in: 'query' });
  return parameters;
}

function byStatus(codes: Set<ErrorCode>): [number, ErrorCode[]][] {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = ERROR_CODES[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return [...groups].sort(([a], [b]) => a - b);
}

/** OpenAPI Link Objects naming their target by its OPERATION_DOCS key, which must be there. */
function links(table: NonNullable<OperationDoc['links']>): JsonSchema {
  return Object.fromEntries(
    Object.entries(table).map(([name, { operation, parameters }]) => {
      if (!OPERATION_DOCS[operation]) throw new Error(`link ${name} names ${operation}, which OPERATION_DOCS lacks`);
      return [name, { operationId: operation.replace('.', '_'), parameters }];
    }),
  );
}

/** The response headers `names`; those in `always` are on every such answer (the contract hook checks them). */
function headers(names: HeaderName[], always: HeaderName[] = ['X-Request-Id']): JsonSchema {
  return Object.fromEntries(
    names.map((name) => [name, always.includes(name) ? { ...HEADERS[name], required: true } : HEADERS[name]]),
  );
}

function schemaRef(name: string): JsonSchema {
  return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
}

/** The named schemas the paths use, and those they use in turn. */
function reachableSchemas(paths: unknown, all: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const found: Record<string, JsonSchema> = {};
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [field, inner] of Object.entries(value)) {
      if (field === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF_PREFIX)) {
        const name = inner.slice(SCHEMA_REF_PREFIX.length);
        if (found[name]) continue;
        if (!all[name]) throw new Error(`the OpenAPI document refers to an unknown schema ${name}`);
        found[name] = all[name];
        visit(all[name]);
      } else visit(inner);
    }
  };
  visit(paths);
  return Object.fromEntries(Object.entries(found).sort(([a], [b]) => a.localeCompare(b)));
}
