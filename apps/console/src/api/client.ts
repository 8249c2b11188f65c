/**
 * The console's only way to the server: `/console/api` with the session cookie, and the CSRF token (kept in memory,
 * never in the browser's storage) on every request that changes something.
 */
let csrfToken: string | null = null;

export function rememberCsrfToken(token: string | null): void {
  csrfToken = token;
}

let sessionEnded: () => void = () => undefined;

/**
 * What to do when the server says the session is gone (an expired or revoked one, `401 MissingAuthorization`):
 * decided once here for every request of every page, rather than by each page's error display.
 */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

/** An answer in the gateway's error envelope: `{ error: { code, message, param? } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(`/console/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (response.status === 204) return undefined as T;
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = envelopeOf(payload);
    if (response.status === 401 && error.code === 'MissingAuthorization') sessionEnded();
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(
      response.status,
      error.code ?? 'InternalError',
      error.message ?? response.statusText,
      error.param,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
  return payload as T;
}

/** The envelope's fields that are strings; none from an answer that is no envelope (a proxy's HTML page, say). */
export function envelopeOf(payload: unknown): { code?: string; message?: string; param?: string } {
  const error = typeof payload === 'object' && payload !== null && 'error' in payload ? payload.error : undefined;
  if (typeof error !== 'object' || error === null) return {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    code: 'code' in error ? text(error.code) : undefined,
    message: 'message' in error ? text(error.message) : undefined,
    param: 'param' in error ? text(error.param) : undefined,
  };
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const remove = <T>(path: string) => api<T>('DELETE', path);
