import { Agent } from 'undici';
import { guardedLookup, HostResolver, systemResolver } from './dns-pinning';
import { assertValidOutboundPolicy, OutboundPolicy } from './outbound-policy';

/**
 * An undici Agent whose every new connection goes through guardedLookup. TLS keeps its defaults: SNI and the
 * certificate check use the URL's host name; only the IP address is pinned. Pair it with parseOutboundUrl, which
 * covers IP-literal hosts.
 */
export function createGuardedAgent(policy: OutboundPolicy, resolve: HostResolver = systemResolver): Agent {
  assertValidOutboundPolicy(policy);
  return new Agent({ connect: { lookup: guardedLookup(policy, resolve) } });
}
