import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { FetchFailedError, UnsafeUrlError } from './fetch-errors';
import { assertValidOutboundPolicy, OutboundPolicy, refusedAddressReason } from './outbound-policy';

/** Resolves a host name to every address it has; dns.lookup (hosts file + resolver) unless a test injects one. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * A `lookup` for net/tls.connect that resolves once, refuses the host if ANY address is refused (the connection may
 * try any of them, happy-eyeballs style), and hands the connection exactly the addresses it checked, so nothing
 * re-resolves between the check and the connect (DNS rebinding).
 * Node skips `lookup` for IP literals; the caller checks those itself.
 */
export function guardedLookup(policy: OutboundPolicy, resolve: HostResolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, policy, resolve).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (wanted.length === 0) return callback(new FetchFailedError(`could not resolve ${hostname}`), '');
        if (options.all) return callback(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}

/**
 * An undici Agent whose every new connection goes through guardedLookup. TLS keeps its defaults: SNI and the
 * certificate check use the URL's host name; only the IP address is pinned. Pair it with parseOutboundUrl, which
 * covers IP-literal hosts.
 */
export function createGuardedAgent(policy: OutboundPolicy, resolve: HostResolver = systemResolver): Agent {
  assertValidOutboundPolicy(policy);
  return new Agent({ connect: { lookup: guardedLookup(policy, resolve) } });
}

async function checkedAddresses(hostname: string, policy: OutboundPolicy, resolve: HostResolver): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(hostname);
  } catch (cause) {
    throw new FetchFailedError(`could not resolve ${hostname}`, { cause });
  }
  if (addresses.length === 0) throw new FetchFailedError(`could not resolve ${hostname}`);
  for (const { address } of addresses) {
    const reason = refusedAddressReason(address, policy);
    if (reason) throw new UnsafeUrlError(`${hostname} resolves to ${reason}`);
  }
  return addresses;
}
