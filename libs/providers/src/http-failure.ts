// How an upstream's failed HTTP call becomes a ProviderError, shared by every HTTP adapter so OpenAI-style and
// DashScope upstreams fail the same way (docs/architecture.md, providers).
import { errors } from 'undici';
import { ProviderError } from './provider.types';

/** DashScope error codes whose HTTP status alone would misclassify them. */
const RETRYABLE_CODE = /^Throttling/;
/** Our account or key, not the caller's request, is at fault: another route may work. */
const ROUTE_CODE = /^(Arrearage|InvalidApiKey|AccessDenied|Model\.AccessDenied)/;

/** 429/5xx retryable (with Retry-After), 401/403/404 the route's fault, any other 4xx the request's. */
export function failureFromResponse(
  status: number,
  text: string,
  retryAfterHeader: string | string[] | undefined,
): ProviderError {
  const { code, message } = readErrorBody(text);
  const described = message ?? `upstream answered HTTP ${status}`;
  if (status === 429 || status >= 500 || (code && RETRYABLE_CODE.test(code))) {
    const retryAfter = Number(Array.isArray(retryAfterHeader) ? retryAfterHeader[0] : retryAfterHeader);
    return new ProviderError(
      described,
      'retryable',
      status,
      Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
    );
  }
  if (status === 401 || status === 403 || status === 404 || (code && ROUTE_CODE.test(code)))
    return new ProviderError(described, 'route', status);
  return new ProviderError(described, 'request', status);
}

/** A call that got no HTTP answer at all (refused, reset, timed out): always worth retrying. */
export function failureFromNetworkError(error: Error): ProviderError {
  const timeout =
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error.name === 'TimeoutError';
  return new ProviderError(
    timeout ? 'upstream timed out' : `upstream unreachable: ${redactSecrets(error.message)}`,
    'retryable',
  );
}

/**
 * The code and human-readable message of an error body: OpenAI style `{"error":{"message","code"}}` or
 * DashScope style `{"code","message","request_id"}`. The message reaches clients and logs, so it is redacted and
 * bounded.
 */
export function readErrorBody(text: string): { code?: string; message?: string } {
  let body: { error?: { message?: string; code?: string | null } | string; message?: string; code?: string };
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
  return { code: typeof code === 'string' ? code : undefined, message: described ? tidy(described) : undefined };
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
