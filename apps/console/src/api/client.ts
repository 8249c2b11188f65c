/**
 * The console's only way to the server: `/console/api` with the session cookie, and the CSRF token (kept in memory,
 * never in the browser's storage) on every request that changes something.
 */
let csrfToken: string | null = null;

export function rememberCsrfToken(token: string | null): void {
  csrfToken = token;
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
  const payload = await response.json().catch(() => null);
  if (!response.ok) {
    const error = payload?.error ?? {};
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(response.status, error.code ?? 'InternalError', error.message ?? response.statusText, error.param, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }
  return payload as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const remove = <T>(path: string) => api<T>('DELETE', path);
