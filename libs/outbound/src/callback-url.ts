import { AppConfig, GatewayError } from '@gateway/common';
import { Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { HostResolver, resolveAllowedAddresses, systemResolver } from './dns-pinning';
import { FetchFailedError, UnsafeUrlError } from './outbound-errors';
import { OutboundPolicy, outboundPolicy } from './outbound-policy';
import { parseOutboundUrl } from './outbound-url';

const MAX_CALLBACK_URL_LENGTH = 2048;

/**
 * The save-time check of an application's callback URL, so a URL that could never be delivered to is refused when it
 * is set rather than discovered days of retries later. Delivery checks again (DNS can change in between).
 * Every failure is an UnsafeUrlError whose message is safe to show the caller (map it to 400 InvalidParameter).
 */
export async function assertCallbackUrl(
  url: string,
  policy: OutboundPolicy,
  resolve: HostResolver = systemResolver,
): Promise<void> {
  if (url.length > MAX_CALLBACK_URL_LENGTH)
    throw new UnsafeUrlError(`callback URL is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
  // Scheme, credentials and IP-literal hosts.
  const parsed = parseOutboundUrl(url, policy);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return;

  try {
    await resolveAllowedAddresses(host, policy, resolve);
  } catch (error) {
    // Delivery would retry an unresolvable name; at save time it is the caller's mistake.
    if (error instanceof FetchFailedError) throw new UnsafeUrlError(`${host} does not resolve`);
    throw error;
  }
}

/**
 * The save-time SSRF check of callback URLs (docs/contracts.md, webhooks): loopback, private and metadata destinations are
 * refused unless the operator allowed them (OUTBOUND_ALLOW_CIDRS, or OUTBOUND_ALLOW_PRIVATE in development).
 */
@Injectable()
export class CallbackUrls {
  private readonly policy: OutboundPolicy;

  constructor(config: AppConfig) {
    this.policy = outboundPolicy(config);
  }

  /** An empty URL removes the callback and needs no check. */
  async check(url: string | undefined, param = 'callback_url'): Promise<void> {
    if (!url) return;
    try {
      await assertCallbackUrl(url, this.policy);
    } catch (error) {
      if (error instanceof UnsafeUrlError)
        throw new GatewayError('InvalidParameter', `${param} is refused: ${error.message}`, { param });
      throw error;
    }
  }
}
