import {
  createGuardedAgent,
  FetchFailedError,
  formatDuration,
  HostResolver,
  isTlsTrustError,
  OutboundPolicy,
  parseOutboundUrl,
  readCappedBody,
  ResponseBody,
  UnsafeUrlError,
} from '@gateway/outbound';
import { performance } from 'node:perf_hooks';
import { Agent, Dispatcher, request } from 'undici';
import { WebhookMessage } from './webhook-signature';

export type DeliveryOutcome = 'delivered' | 'retry' | 'gone' | 'rejected';

/** One attempt, as recorded in webhook_deliveries. `error` is safe to show the application's owner. */
export interface DeliveryResult {
  outcome: DeliveryOutcome;
  httpStatus?: number;
  error?: string;
  durationMs: number;
  /** The first characters of the receiver's answer, for the console. */
  responseSnippet?: string;
}

const SNIPPET_CHARS = 200;
/** Enough bytes for SNIPPET_CHARS of any UTF-8 text; the rest of the body is not read. */
const SNIPPET_BYTES = SNIPPET_CHARS * 4;

/**
 * POSTs signed webhook messages to callback URLs behind the SSRF guard: the URL and every address its host resolves
 * to are checked against the outbound policy and the connection is pinned to the checked address. Never throws:
 * every attempt ends in a DeliveryResult the caller records and schedules by.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(
    private readonly policy: OutboundPolicy,
    private readonly timeoutMs: number,
    resolve?: HostResolver,
  ) {
    this.agent = createGuardedAgent(policy, resolve);
  }

  /** `extraHeaders`: the `traceparent` of a traced delivery. */
  async send(
    url: string,
    message: WebhookMessage,
    extraHeaders: Readonly<Record<string, string>> = {},
  ): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = parseOutboundUrl(url, this.policy);
    } catch (error) {
      return { outcome: 'rejected', error: (error as Error).message, durationMs: elapsed() };
    }

    const signal = AbortSignal.timeout(this.timeoutMs);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, {
        method: 'POST',
        dispatcher: this.agent,
        signal,
        headers: {
          ...extraHeaders,
          'content-type': 'application/json',
          'user-agent': 'model-gateway-webhooks',
          'webhook-id': message.id,
          'webhook-timestamp': String(message.timestamp),
          'webhook-signature': message.signature,
        },
        body: message.body,
      });
    } catch (error) {
      return { ...this.networkFailure(error, target, signal), durationMs: elapsed() };
    }

    const httpStatus = response.statusCode;
    const responseSnippet = await readSnippet(response.body);
    return {
      ...classifyStatus(httpStatus),
      httpStatus,
      durationMs: elapsed(),
      ...(responseSnippet ? { responseSnippet } : {}),
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Names only the URL's host: undici's messages can name the resolved internal address, and the path or query may hold a token. */
  private networkFailure(error: unknown, url: URL, signal: AbortSignal): Pick<DeliveryResult, 'outcome' | 'error'> {
    const guardError = findInChain(error, (e) => e instanceof UnsafeUrlError || e instanceof FetchFailedError);
    if (guardError instanceof UnsafeUrlError) return { outcome: 'rejected', error: guardError.message };
    if (guardError) return { outcome: 'retry', error: guardError.message };
    if (signal.aborted) return { outcome: 'retry', error: `no answer within ${formatDuration(this.timeoutMs)}` };

    const code =
      findInChain(error, (e): e is Error & { code: string } => 'code' in e && typeof e.code === 'string')?.code ?? '';
    if (code === 'ECONNREFUSED') return { outcome: 'retry', error: `${url.host} refused the connection` };
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
      return { outcome: 'retry', error: `${url.host} closed the connection` };
    if (isTlsTrustError(code))
      return { outcome: 'retry', error: `${url.host} presented a TLS certificate that is not trusted` };
    const detail = /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : '';
    return { outcome: 'retry', error: `could not reach ${url.host}${detail}` };
  }
}

/** 2xx delivered; 410 unsubscribes; 429 and 5xx are the receiver's temporary trouble; any other answer will not change on retry. */
function classifyStatus(status: number): Pick<DeliveryResult, 'outcome' | 'error'> {
  if (status >= 200 && status < 300) return { outcome: 'delivered' };
  if (status === 410)
    return { outcome: 'gone', error: 'answered HTTP 410 Gone; the callback is disabled until its URL is saved again' };
  if (status === 429 || status >= 500) return { outcome: 'retry', error: `answered HTTP ${status}` };
  // Following a redirect would send the signed event to a URL nobody checked at save time.
  if (status >= 300 && status < 400)
    return {
      outcome: 'rejected',
      error: `answered HTTP ${status}; redirects are not followed, save the final URL as the callback URL`,
    };
  return { outcome: 'rejected', error: `answered HTTP ${status}` };
}

/** The start of the response body as text; whatever goes wrong reading it, the status alone decides the outcome. */
async function readSnippet(body: ResponseBody): Promise<string | undefined> {
  // Timed out or reset mid-body: what arrived is still worth showing.
  const { bytes } = await readCappedBody(body, SNIPPET_BYTES);
  const text = storableText(bytes.toString('utf8').slice(0, SNIPPET_CHARS)).trim();
  return text || undefined;
}

const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A receiver's words as the database stores them: U+0000 (which MongoDB and FerretDB refuse in a string) and lone
 * surrogates (a pair cut by the length bound; UTF-8 cannot encode one) become U+FFFD, one for one.
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** Walks `error` and its causes. Duck-typed: Node's own errors can come from another realm (jest) and fail `instanceof Error`. */
function findInChain<T extends Error>(error: unknown, predicate: (candidate: Error) => candidate is T): T | undefined {
  let current = error;
  for (let depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const candidate = current as Error;
    if (predicate(candidate)) return candidate;
    current = candidate.cause;
  }
  return undefined;
}
