import { isIP } from 'node:net';
import { UnsafeUrlError } from './outbound-errors';
import { OutboundPolicy, refusedAddressReason } from './outbound-policy';

/**
 * Parses a caller-supplied URL (relative to `base` for a redirect's Location) and refuses everything the URL alone
 * gives away: a scheme other than http(s), credentials, an IP-literal host the policy refuses. Host names are
 * checked when they are resolved, by guardedLookup.
 */
export function parseOutboundUrl(value: string, policy: OutboundPolicy, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    throw new UnsafeUrlError(base ? 'redirect to an invalid URL' : 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UnsafeUrlError('URL scheme must be http or https');
  if (url.username || url.password) throw new UnsafeUrlError('URL must not contain credentials');
  // WHATWG URL has already normalised IPv4 shorthands (http://2130706433/, http://0x7f.1/) to dotted quads.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // Node connects to an IP literal without calling `lookup`, so this is the only check such a host gets.
  if (isIP(host)) {
    const reason = refusedAddressReason(host, policy);
    if (reason) throw new UnsafeUrlError(`${url.hostname} is ${reason}`);
  }
  return url;
}
