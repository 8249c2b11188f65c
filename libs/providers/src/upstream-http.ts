// The HTTP calls every network adapter makes: a POST whose JSON answer is parsed, and the bounded download of a
// generated image. Failures come out as ProviderErrors; keys and signed URLs never appear in their messages.
import { ImageFormat, sniffImageFormat } from '@gateway/imaging';
import { inClientSpan, noteResponseStatus } from '@gateway/common';
import { readBodyWithin } from '@gateway/outbound';
import { createParser } from 'eventsource-parser';
import { Agent, Dispatcher, FormData, request } from 'undici';
import { failureFromNetworkError, failureFromResponse, failureInSuccess } from './http-failure';
import { ProviderError } from './provider.types';

/** A pooled keep-alive client for one provider's upstreams; each phase bounded by the upstream timeout. */
export function upstreamAgent(timeoutMs: number, connections: number): Agent {
  return new Agent({ keepAliveTimeout: 30_000, connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
}

/** Largest generated image accepted from an upstream, inline or downloaded. */
export const MAX_RESULT_IMAGE_BYTES = 20 * 1024 * 1024;

export interface UpstreamRequestOptions {
  dispatcher: Dispatcher;
  /** Bounds the whole exchange, body included. */
  signal: AbortSignal;
  apiKey?: string;
  /** Refuse a successful answer larger than this (bytes); unbounded when absent. */
  maxBytes?: number;
}

type UpstreamPost = { dispatcher: Dispatcher } & Pick<Dispatcher.RequestOptions, 'headers' | 'body' | 'signal'>;

/** A POST whose non-2xx answer, or failure to connect, comes out as a ProviderError. */
async function post(url: string, init: UpstreamPost): Promise<Dispatcher.ResponseData> {
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, { ...init, method: 'POST' });
  } catch (error) {
    throw failureFromNetworkError(error as Error);
  }
  noteResponseStatus(response.statusCode);
  if (response.statusCode < 200 || response.statusCode >= 300) {
    const text = await response.body.text().catch(() => '');
    throw failureFromResponse(
      response.statusCode,
      text,
      response.headers['retry-after'],
      response.headers['x-request-id'],
    );
  }
  return response;
}

export interface UpstreamAnswer<T> {
  body: T;
  /** The upstream's id of the request (DashScope's `request_id`, OpenAI's `x-request-id`), when it sent one. */
  requestId?: string;
}

/**
 * POSTs JSON (or multipart, for a FormData body) and returns the parsed JSON answer; a 200 answer that carries an
 * error code is a failure. Inside a traced task the whole exchange is a client span the upstream is told of.
 */
export function postToUpstream<T>(
  url: string,
  body: string | FormData,
  options: UpstreamRequestOptions,
): Promise<UpstreamAnswer<T>> {
  return inClientSpan({ method: 'POST', url, peer: 'upstream' }, (traceHeaders) =>
    postAndParse<T>(url, body, options, traceHeaders),
  );
}

async function postAndParse<T>(
  url: string,
  body: string | FormData,
  options: UpstreamRequestOptions,
  traceHeaders: Readonly<Record<string, string>>,
): Promise<UpstreamAnswer<T>> {
  const response = await post(url, {
    dispatcher: options.dispatcher,
    // undici writes the multipart content type (with its boundary) itself for a FormData body.
    headers: {
      ...traceHeaders,
      ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
    body,
    signal: options.signal,
  });
  const text = options.maxBytes
    ? (await readUpstreamBody(response, options.maxBytes, 'upstream answer')).toString('utf8')
    : await response.body.text().catch(() => '');
  let answer: T;
  try {
    answer = JSON.parse(text) as T;
  } catch {
    throw new ProviderError('upstream answered with invalid JSON', 'retryable', response.statusCode);
  }
  const failure = failureInSuccess(response.statusCode, answer);
  if (failure) throw failure;
  const fields = answer as { request_id?: unknown; id?: unknown } | null;
  return {
    body: answer,
    // DashScope's native `request_id`, else the header, else the body's `id`: DashScope's compatible mode sends no
    // header and answers its request id as the completion's (or embedding list's) `id`.
    requestId: idOf(fields?.request_id) ?? headerRequestId(response.headers) ?? idOf(fields?.id),
  };
}

/** The upstream's id of a request as its `x-request-id` header gives it, when it does. */
function headerRequestId(headers: Dispatcher.ResponseData['headers']): string | undefined {
  const value = headers['x-request-id'];
  return idOf(Array.isArray(value) ? value[0] : value);
}

/** A non-empty string id, bounded: it is only ever recorded and logged. */
export function idOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, 128) : undefined;
}

/**
 * POSTs JSON to an endpoint that answers Server-Sent Events and hands each event's data to `onData` as it
 * arrives (eventsource-parser does the framing: multi-line data, comments, CRLF, split chunks). Resolves when the
 * stream ends, with the request id the upstream's header gave; an HTTP error before the stream is a ProviderError
 * like any other call's. Traced like postToUpstream, the span lasting to the stream's end.
 */
export function streamFromUpstream(
  url: string,
  body: string,
  options: UpstreamRequestOptions & { stop: AbortSignal },
  onData: (data: string) => Promise<void>,
): Promise<{ requestId?: string }> {
  return inClientSpan({ method: 'POST', url, peer: 'upstream' }, (traceHeaders) =>
    relayStream(url, body, options, onData, traceHeaders),
  );
}

async function relayStream(
  url: string,
  body: string,
  options: UpstreamRequestOptions & { stop: AbortSignal },
  onData: (data: string) => Promise<void>,
  traceHeaders: Readonly<Record<string, string>>,
): Promise<{ requestId?: string }> {
  const response = await post(url, {
    dispatcher: options.dispatcher,
    headers: {
      ...traceHeaders,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    },
    body,
    // `stop` ends the stream early on purpose (the client left); `signal` bounds the whole call.
    signal: AbortSignal.any([options.signal, options.stop]),
  });
  const events: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event.data) });
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      parser.feed(chunk.toString('utf8'));
      // In order, each awaited: a chunk reaches the caller's stream before the next is read.
      for (let event = events.shift(); event !== undefined; event = events.shift()) await onData(event);
    }
  } catch (error) {
    if (options.stop.aborted) return { requestId: headerRequestId(response.headers) };
    // A failure `onData` found in what arrived (an error event, say) is already said as one.
    const failure = error instanceof ProviderError ? error : failureFromNetworkError(error as Error);
    // Answered 200 with the id, so a failure mid-stream is recorded and logged by it too.
    throw withRequestId(failure, headerRequestId(response.headers));
  }
  return { requestId: headerRequestId(response.headers) };
}

/** The failure with the upstream's request id, unless it has one already or there is none. */
export function withRequestId(failure: ProviderError, requestId: string | undefined): ProviderError {
  if (failure.requestId || !requestId) return failure;
  const { message, status, retryAfter, code } = failure;
  return new ProviderError(message, failure.failure, status, { retryAfter, code, requestId });
}

export interface DownloadOptions {
  dispatcher: Dispatcher;
  signal: AbortSignal;
  maxBytes: number;
}

/**
 * Fetches a generated image from the URL an upstream answered with. The URL is usually signed (its query is a
 * credential), so only its host appears in errors. A result that cannot be fetched is retryable: a new generation
 * gives a new URL.
 */
export async function downloadImage(url: string, options: DownloadOptions): Promise<Buffer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ProviderError('upstream answered with an invalid image URL', 'retryable');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new ProviderError(`upstream answered with a ${target.protocol} image URL`, 'retryable');
  }
  let response: Dispatcher.ResponseData;
  try {
    response = await request(target, { method: 'GET', dispatcher: options.dispatcher, signal: options.signal });
  } catch (error) {
    const failure = failureFromNetworkError(error as Error);
    throw new ProviderError(`image download from ${target.host} failed: ${failure.message}`, 'retryable', undefined, {
      code: failure.code,
    });
  }
  if (response.statusCode !== 200) {
    await response.body.dump().catch(() => undefined);
    throw new ProviderError(
      `image download from ${target.host} answered HTTP ${response.statusCode}`,
      'retryable',
      response.statusCode,
    );
  }
  const image = await readUpstreamBody(response, options.maxBytes, 'upstream image');
  assertUpstreamImage(image);
  return image;
}

/** Decodes a base64 image an upstream returned inline, with the same bound as a download. */
export function decodeInlineImage(base64: string, maxBytes: number): Buffer {
  // Base64 is 4 characters per 3 bytes: checking the text length first avoids decoding a huge string at all.
  if (Math.floor((base64.length * 3) / 4) > maxBytes + 3) throw tooLarge('upstream image', maxBytes);
  const image = Buffer.from(base64, 'base64');
  if (image.length > maxBytes) throw tooLarge('upstream image', maxBytes);
  assertUpstreamImage(image);
  return image;
}

/** A whole answer up to `maxBytes` (readBodyWithin), its failures as ProviderErrors. */
async function readUpstreamBody(response: Dispatcher.ResponseData, maxBytes: number, what: string): Promise<Buffer> {
  const read = await readBodyWithin(response, maxBytes);
  if ('error' in read) throw failureFromNetworkError(read.error as Error);
  if ('tooLarge' in read) throw tooLarge(what, maxBytes);
  return read.bytes;
}

/** An answer this large is the route's doing, not the request's: another route may produce a usable one. */
function tooLarge(what: string, maxBytes: number): ProviderError {
  return new ProviderError(`${what} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`, 'route');
}

/** Formats upstreams answer with; anything else (an HTML error page, say) is not an image. */
const UPSTREAM_IMAGE_FORMATS: ReadonlySet<ImageFormat> = new Set(['png', 'jpeg', 'webp']);

function assertUpstreamImage(bytes: Buffer): void {
  const format = sniffImageFormat(bytes);
  if (!format || !UPSTREAM_IMAGE_FORMATS.has(format))
    throw new ProviderError('upstream answered with something that is not a PNG, JPEG or WEBP image', 'retryable');
}
