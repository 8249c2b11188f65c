import { HostResolver, OutboundPolicy, parseOutboundUrl, refusedAddressReason, systemResolver, UnsafeUrlError } from '@gateway/imaging';
import { isIP } from 'node:net';

export const MAX_CALLBACK_URL_LENGTH = 2048;

/**
 * The save-time check of an application's callback URL, so a URL that could never be delivered to is refused when it
 * is set rather than discovered days of retries later. Delivery checks again (DNS can change in between).
 * Every failure is an UnsafeUrlError whose message is safe to show the caller (map it to 400 InvalidParameter).
 */
export async function assertCallbackUrl(url: string, policy: OutboundPolicy, resolve: HostResolver = systemResolver): Promise<void> {
  if (url.length > MAX_CALLBACK_URL_LENGTH) throw new UnsafeUrlError(`callback URL is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
  // Scheme, credentials and IP-literal hosts.
  const parsed = parseOutboundUrl(url, policy);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return;

  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new UnsafeUrlError(`${host} does not resolve`);
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`${host} does not resolve`);
  // Every address: a connection may use any of them. The message names the kind of address, never the address.
  for (const { address } of addresses) {
    const reason = refusedAddressReason(address, policy);
    if (reason) throw new UnsafeUrlError(`${host} resolves to ${reason}`);
  }
}
