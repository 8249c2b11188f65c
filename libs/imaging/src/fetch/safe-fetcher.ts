import { Agent, Dispatcher, request } from 'undici';
import { FetchFailedError, UnsafeUrlError } from './fetch-errors';
import { createGuardedAgent, HostResolver } from './guarded-lookup';
import { OutboundPolicy } from './outbound-policy';
import { parseOutboundUrl } from './outbound-url';

export interface SafeFetchOptions {
  /** Body size cap; the download is aborted as soon as it is exceeded. */
  maxBytes: number;
  /** For the whole fetch: every redirect hop and the body included. */
  timeoutMs: number;
  maxRedirects: number;
  /** Host name resolution, injectable for tests; dns.lookup by default. */
  resolve?: HostResolver;
}

export interface FetchedBody {
  bytes: Buffer;
  contentType?: string;
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GETs caller-supplied URLs without letting them reach the gateway's own network (SSRF): http(s) only, no
 * credentials, every address checked against the outbound policy and the connection pinned to the checked address,
 * redirects followed by hand and re-checked hop by hop, the body streamed under a byte cap and a total timeout.
 */
export class SafeFetcher {
  private readonly agent: Agent;

  constructor(private readonly policy: OutboundPolicy, private readonly options: SafeFetchOptions) {
    this.agent = createGuardedAgent(policy, options.resolve);
  }

  async fetch(url: string): Promise<FetchedBody> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let target = parseOutboundUrl(url, this.policy);
    for (let redirects = 0; ; redirects++) {
      const response = await this.send(target, signal);
      if (!REDIRECT_STATUSES.has(response.statusCode)) return this.body(target, response, signal);

      discard(response.body);
      const location = response.headers.location;
      if (typeof location !== 'string') throw new FetchFailedError(`${target.host} answered HTTP ${response.statusCode} without a Location`);
      if (redirects >= this.options.maxRedirects) throw new UnsafeUrlError(`more than ${this.options.maxRedirects} redirects`);
      target = parseOutboundUrl(location, this.policy, target);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send(url: URL, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    try {
      return await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        signal,
        // Identity, so maxBytes bounds what is kept, not a compressed stream that could inflate.
        headers: { accept: '*/*', 'accept-encoding': 'identity', 'user-agent': 'model-gateway' },
      });
    } catch (error) {
      throw this.failure(error, url, signal);
    }
  }

  private async body(url: URL, response: Dispatcher.ResponseData, signal: AbortSignal): Promise<FetchedBody> {
    const { statusCode, headers, body } = response;
    if (statusCode < 200 || statusCode >= 300) {
      discard(body);
      throw new FetchFailedError(`${url.host} answered HTTP ${statusCode}`);
    }
    const tooLarge = () => new FetchFailedError(`response is larger than ${formatBytes(this.options.maxBytes)}`);
    if (Number(headers['content-length']) > this.options.maxBytes) {
      discard(body);
      throw tooLarge();
    }

    const chunks: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of body) {
        received += (chunk as Buffer).length;
        if (received > this.options.maxBytes) {
          discard(body);
          throw tooLarge();
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      throw error instanceof FetchFailedError ? error : this.failure(error, url, signal);
    }
    const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
    return { bytes: Buffer.concat(chunks, received), contentType, finalUrl: url.href };
  }

  /** A client-safe error: undici's own messages can name the resolved address ("connect ECONNREFUSED 10.0.0.5:80"). */
  private failure(error: unknown, url: URL, signal: AbortSignal): Error {
    if (error instanceof UnsafeUrlError || error instanceof FetchFailedError) return error;
    if (signal.aborted) return new FetchFailedError(`timed out after ${formatMilliseconds(this.options.timeoutMs)}`, { cause: error });
    const code = String((error as NodeJS.ErrnoException)?.code ?? '');
    if (code === 'ECONNREFUSED') return new FetchFailedError(`${url.host} refused the connection`, { cause: error });
    if (TLS_TRUST_ERRORS.test(code)) {
      return new FetchFailedError(`${url.host} presented a TLS certificate that is not trusted`, { cause: error });
    }
    return new FetchFailedError(`could not fetch from ${url.host}`, { cause: error });
  }
}

const TLS_TRUST_ERRORS = /^(CERT_|ERR_TLS_CERT_ALTNAME_INVALID$|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$)/;

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

function formatMilliseconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Drops a body we will not read, closing its connection; destroy() alone would emit an unhandled abort error. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined).destroy();
}
