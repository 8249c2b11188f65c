import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { LookupFunction } from 'node:net';
import { FetchFailedError, UnsafeUrlError } from './outbound-errors';
import { OutboundPolicy, refusedAddressReason } from './outbound-policy';

/** Resolves a host name to every address it has; dns.lookup (hosts file + resolver) unless a test injects one. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/**
 * A `lookup` for net/tls.connect that resolves once, refuses the host if ANY address is refused (the connection may
 * try any of them, happy-eyeballs style), and hands the connection exactly the addresses it checked, so nothing
 * re-resolves between the check and the connect (DNS rebinding).
 * Node skips `lookup` for IP literals; the caller checks those itself.
 */
export function guardedLookup(policy: OutboundPolicy, resolve: HostResolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowedAddresses(hostname, policy, resolve).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        if (wanted.length === 0) return callback(new FetchFailedError(`could not resolve ${hostname}`), '');
        if (options.all) return callback(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}

/**
 * Every address of `hostname`, once all of them pass the policy. A name that does not resolve is a FetchFailedError
 * (DNS may recover); a refused address is an UnsafeUrlError naming the kind of address, never the address itself.
 */
export async function resolveAllowedAddresses(
  hostname: string,
  policy: OutboundPolicy,
  resolve: HostResolver = systemResolver,
): Promise<LookupAddress[]> {
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
