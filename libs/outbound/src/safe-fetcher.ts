import { Agent, Dispatcher, request } from 'undici';
import { discardBody, readCappedBody } from './capped-body';
import { HostResolver } from './dns-pinning';
import { formatDuration } from './format-duration';
import { createGuardedAgent } from './guarded-agent';
import { FetchFailedError, UnsafeUrlError } from './outbound-errors';
import { OutboundPolicy } from './outbound-policy';
import { parseOutboundUrl } from './outbound-url';
import { isTlsTrustError } from './tls-errors';

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

  constructor(
    private readonly policy: OutboundPolicy,
    private readonly options: SafeFetchOptions,
  ) {
    this.agent = createGuardedAgent(policy, options.resolve);
  }

  async fetch(url: string): Promise<FetchedBody> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let target = parseOutboundUrl(url, this.policy);
    for (let redirects = 0; ; redirects++) {
      const response = await this.send(target, signal);
      if (!REDIRECT_STATUSES.has(response.statusCode)) return this.body(target, response, signal);

      discardBody(response.body);
      const location = response.headers.location;
      if (typeof location !== 'string')
        throw new FetchFailedError(`${target.host} answered HTTP ${response.statusCode} without a Location`);
      if (redirects >= this.options.maxRedirects)
        throw new UnsafeUrlError(`more than ${this.options.maxRedirects} redirects`);
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
      discardBody(body);
      throw new FetchFailedError(`${url.host} answered HTTP ${statusCode}`);
    }
    const tooLarge = () => new FetchFailedError(`response is larger than ${formatBytes(this.options.maxBytes)}`);
    if (Number(headers['content-length']) > this.options.maxBytes) {
      discardBody(body);
      throw tooLarge();
    }

    const read = await readCappedBody(body, this.options.maxBytes);
    if (read.error) throw this.failure(read.error, url, signal);
    if (read.truncated) throw tooLarge();
    const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
    return { bytes: read.bytes, contentType, finalUrl: url.href };
  }

  /** A client-safe error: undici's own messages can name the resolved address ("connect ECONNREFUSED 10.0.0.5:80"). */
  private failure(error: unknown, url: URL, signal: AbortSignal): Error {
    if (error instanceof UnsafeUrlError || error instanceof FetchFailedError) return error;
    if (signal.aborted)
      return new FetchFailedError(`timed out after ${formatDuration(this.options.timeoutMs)}`, { cause: error });
    const code = String((error as NodeJS.ErrnoException)?.code ?? '');
    if (code === 'ECONNREFUSED') return new FetchFailedError(`${url.host} refused the connection`, { cause: error });
    if (isTlsTrustError(code)) {
      return new FetchFailedError(`${url.host} presented a TLS certificate that is not trusted`, { cause: error });
    }
    return new FetchFailedError(`could not fetch from ${url.host}`, { cause: error });
  }
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}
