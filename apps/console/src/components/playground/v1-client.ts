import { ApiError, envelopeOf } from '../../api/client';

/**
 * Calls the gateway's own /v1 API from the browser with an application's API key, as any client would: same origin
 * (the console's CSP allows `connect-src 'self'`), no session cookie, so the call is limited, counted and billed as
 * that application's. A refusal is thrown as an ApiError carrying the envelope's code and words.
 */
export async function callV1(apiKey: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  const response = await fetch(`/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'omit',
    signal,
  });
  if (!response.ok) throw await refusalOf(response);
  return response;
}

export async function postV1<T>(apiKey: string, path: string, body: unknown): Promise<T> {
  return (await callV1(apiKey, path, body)).json() as Promise<T>;
}

async function refusalOf(response: Response): Promise<ApiError> {
  const { code, message, param } = envelopeOf(await response.json().catch(() => null));
  const retryAfter = Number(response.headers.get('retry-after')) || undefined;
  return new ApiError(
    response.status,
    code ?? `HTTP ${response.status}`,
    message ?? response.statusText,
    param,
    retryAfter,
  );
}

/** The `data:` events of a Server-Sent Events body, parsed as JSON, up to `[DONE]`. */
export async function* serverSentEvents(response: Response): AsyncGenerator<unknown> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '[DONE]') return;
      if (data) yield JSON.parse(data);
    }
  }
}
