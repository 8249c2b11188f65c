// How an upstream's failed HTTP call becomes a ProviderError, shared by every HTTP adapter so OpenAI-style and
// DashScope upstreams fail the same way (docs/architecture.md, providers).
import { errors } from 'undici';
import { ProviderError, ProviderFailure } from './provider.types';
import { ruleFor } from './upstream-error-table';

/** What the status says when the code says nothing: 408/429/5xx retryable, 401/403/404 the route's, 4xx the request's. */
function failureOfStatus(status: number): ProviderFailure {
  if (status === 408 || status === 429 || status >= 500) return 'retryable';
  if (status === 401 || status === 403 || status === 404) return 'route';
  return 'request';
}

/** Statuses whose bare message ("Payload Too Large") would not tell the caller what to change. */
const STATUS_MESSAGES: Record<number, string> = {
  413: 'the upstream refused the request as too large (HTTP 413)',
  415: "the upstream refused the request body's media type (HTTP 415)",
};

/**
 * Classifies a failed answer by its error code first (upstream-error-table.ts), then its status; keeps the
 * upstream's request id for logs.
 */
export function failureFromResponse(
  status: number,
  text: string,
  retryAfterHeader: string | string[] | undefined,
  requestIdHeader?: string | string[],
): ProviderError {
  const { code, message, requestId } = readErrorBody(text);
  // DashScope puts its request id in every error body, compatible mode's included; OpenAI sends it as a header.
  const rule = code ? ruleFor(status, code, message, requestId ? 'dashscope' : 'other') : undefined;
  const failure = rule?.failure ?? failureOfStatus(status);
  const preface = rule?.describe ?? STATUS_MESSAGES[status];
  const described = preface
    ? `${preface}${message ? `: ${message}` : ''}`
    : (message ?? `upstream answered HTTP ${status}`);
  const retryAfter = Number(Array.isArray(retryAfterHeader) ? retryAfterHeader[0] : retryAfterHeader);
  return new ProviderError(described, failure, status, {
    retryAfter: failure === 'retryable' && Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
    code,
    requestId: requestId ?? firstHeader(requestIdHeader),
  });
}

/**
 * A 200 answer that carries an error `code` (some DashScope endpoints answer failures so) is a failure like any
 * other; undefined for a genuine answer.
 */
export function failureInSuccess(status: number, answer: unknown): ProviderError | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { code, output } = answer as { code?: unknown; output?: unknown };
  if (typeof code !== 'string' || code === '' || output !== undefined) return undefined;
  const failure = failureFromResponse(status, JSON.stringify(answer), undefined);
  // An unknown code on a 200 is no proof the call failed harmlessly: try elsewhere rather than repeat it.
  return failure.failure === 'request' ? new ProviderError(failure.message, 'route', status, failure) : failure;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

/**
 * A call that got no HTTP answer at all (refused, reset, timed out): worth retrying, unless the caller knows the
 * upstream may have acted on it anyway (wasSent). `code` keeps the network error's code (ECONNREFUSED,
 * UND_ERR_HEADERS_TIMEOUT, TimeoutError) so that caller can tell.
 */
export function failureFromNetworkError(error: Error): ProviderError {
  const timeout =
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error.name === 'TimeoutError';
  return new ProviderError(
    timeout ? 'upstream timed out' : `upstream unreachable: ${redactSecrets(error.message)}`,
    'retryable',
    undefined,
    // A timeout is a DOMException, whose `code` is a number; its name says what happened.
    { code: timeout ? 'TimeoutError' : stringCode(error) },
  );
}

function stringCode(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error.name;
}

/** Network failures that happen before a request reaches the upstream, so it cannot have acted on it. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Whether the upstream may have received (and acted on) a request that failed this way. */
export function wasSent(error: ProviderError): boolean {
  return error.status !== undefined || !NOT_SENT_CODES.has(error.code ?? '');
}

/**
 * The code and human-readable message of an error body: OpenAI style `{"error":{"message","code"}}` or
 * DashScope style `{"code","message","request_id"}`. The message reaches clients and logs, so it is redacted and
 * bounded.
 */
export function readErrorBody(text: string): { code?: string; message?: string; requestId?: string } {
  let body: {
    error?: { message?: string; code?: string | null } | string;
    message?: string;
    code?: string;
    request_id?: string;
  };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return {};
  }
  if (typeof body !== 'object' || body === null) return {};
  if (typeof body.error === 'string') return { message: tidy(body.error) };
  const code = body.error?.code ?? body.code ?? undefined;
  const message = body.error?.message ?? body.message;
  // DashScope's message alone ("Input data may contain inappropriate content.") loses which check refused it.
  const dashScopeStyle = typeof code === 'string' && !body.error;
  const described = dashScopeStyle ? (message ? `${code}: ${message}` : code) : message;
  return {
    code: typeof code === 'string' ? code : undefined,
    message: described ? tidy(described) : undefined,
    // Not ours to show the caller: it goes to the task record and the logs (ProviderError.requestId).
    requestId: typeof body.request_id === 'string' ? body.request_id.slice(0, 128) : undefined,
  };
}

const MAX_MESSAGE_CHARS = 300;

function tidy(message: string): string {
  const redacted = redactSecrets(message);
  return redacted.length > MAX_MESSAGE_CHARS ? `${redacted.slice(0, MAX_MESSAGE_CHARS)}…` : redacted;
}

/** Some upstreams echo (part of) the key they were sent, e.g. "Incorrect API key provided: sk-ab***yz". */
function redactSecrets(text: string): string {
  return text
    .replace(/\b(sk|ak|key)-[\w*.~-]{3,}/gi, '[redacted key]')
    .replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]');
}
