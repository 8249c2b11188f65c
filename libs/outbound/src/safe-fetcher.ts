import { isIP } from 'node:net';
import { Agent, Dispatcher, request } from 'undici';
import { discardBody, readBodyWithin } from './capped-body';
import { HostResolver, systemResolver } from './dns-pinning';
import { formatDuration } from './format-duration';
import { createGuardedAgent } from './guarded-agent';
import { FetchFailedError, UnsafeUrlError } from './outbound-errors';
import { DEFAULT_OUTBOUND_POLICY, OutboundPolicy, refusedAddressReason } from './outbound-policy';
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
  /** How the bytes were had: whether another party on the internet could fetch the same URL alike. */
  reach: FetchReach;
}

/**
 * What a fetch found on its way, for deciding whether an upstream that fetches URLs itself may be given the URL
 * instead of the bytes: the upstream is on the public internet, follows no redirects and wants a Content-Length.
 */
export interface FetchReach {
  /** The answer came from the URL itself, no redirect followed. */
  direct: boolean;
  /**
   * The host is public by the default policy: an IP literal that is public unicast, or a name whose every address
   * was at its latest resolution, so no allow-list or development flag was needed to reach it.
   */
  publicHost: boolean;
  /** The answer declared its length (Content-Length). */
  declaredLength: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Names whose last resolution SafeFetcher remembers; a pooled connection outlives its lookup by seconds, not hours. */
const MAX_NOTED_NAMES = 1024;

/**
 * GETs caller-supplied URLs without letting them reach the gateway's own network (SSRF): http(s) only, no
 * credentials, every address checked against the outbound policy and the connection pinned to the checked address,
 * redirects followed by hand and re-checked hop by hop, the body streamed under a byte cap and a total timeout.
 */
export class SafeFetcher {
  private readonly agent: Agent;
  /** Host names resolved lately, and whether every address each had was public (FetchReach.publicHost). */
  private readonly publicNames = new Map<string, boolean>();

  constructor(
    private readonly policy: OutboundPolicy,
    private readonly options: SafeFetchOptions,
  ) {
    this.agent = createGuardedAgent(policy, this.noting(options.resolve ?? systemResolver));
  }

  async fetch(url: string): Promise<FetchedBody> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let target = parseOutboundUrl(url, this.policy);
    for (let redirects = 0; ; redirects++) {
      const response = await this.send(target, signal);
      if (!REDIRECT_STATUSES.has(response.statusCode)) {
        const fetched = await this.body(target, response, signal);
        return { ...fetched, reach: this.reachOf(target, response, redirects) };
      }

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

  private reachOf(url: URL, response: Dispatcher.ResponseData, redirects: number): FetchReach {
    const length = response.headers['content-length'];
    return {
      direct: redirects === 0,
      publicHost: this.isPublicHost(url.hostname),
      declaredLength: typeof length === 'string' && /^\d+$/.test(length),
    };
  }

  /**
   * Whether `hostname` is reachable under the default policy: an IP literal by itself, a name by its latest
   * resolution, whose every address must be public (a name that can resolve to a private or allow-listed address
   * counts as not public).
   */
  private isPublicHost(hostname: string): boolean {
    const bare = hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(bare)) return refusedAddressReason(bare, DEFAULT_OUTBOUND_POLICY) === null;
    return this.publicNames.get(bare) ?? false;
  }

  /** The resolver the agent connects through, noting for each name whether all its addresses are public. */
  private noting(resolve: HostResolver): HostResolver {
    return async (hostname) => {
      const addresses = await resolve(hostname);
      const allPublic =
        addresses.length > 0 &&
        addresses.every(({ address }) => refusedAddressReason(address, DEFAULT_OUTBOUND_POLICY) === null);
      this.publicNames.delete(hostname);
      this.publicNames.set(hostname, allPublic);
      // Oldest first: a Map keeps insertion order.
      const oldest = this.publicNames.keys().next();
      if (this.publicNames.size > MAX_NOTED_NAMES && !oldest.done) this.publicNames.delete(oldest.value);
      return addresses;
    };
  }

  private async body(
    url: URL,
    response: Dispatcher.ResponseData,
    signal: AbortSignal,
  ): Promise<Omit<FetchedBody, 'reach'>> {
    const { statusCode, headers, body } = response;
    if (statusCode < 200 || statusCode >= 300) {
      discardBody(body);
      throw new FetchFailedError(`${url.host} answered HTTP ${statusCode}`);
    }
    const read = await readBodyWithin(response, this.options.maxBytes);
    if ('error' in read) throw this.failure(read.error, url, signal);
    if ('tooLarge' in read) throw new FetchFailedError(`response is larger than ${formatBytes(this.options.maxBytes)}`);
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
