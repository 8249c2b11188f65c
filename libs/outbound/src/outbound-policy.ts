import { parseCidrRange } from '@gateway/contracts';
import type { AppConfig } from '@gateway/common';
import ipaddr from 'ipaddr.js';

/** Where the gateway may send requests to caller-supplied URLs (image URLs, webhook callbacks). */
export interface OutboundPolicy {
  /** Dev flag: allow private, loopback, link-local and CGNAT destinations (never the default). */
  allowPrivate: boolean;
  /** Explicit CIDRs that are allowed even though private (e.g. an internal image store). */
  allowCidrs: string[];
}

export const DEFAULT_OUTBOUND_POLICY: OutboundPolicy = { allowPrivate: false, allowCidrs: [] };

/** The policy the operator configured (OUTBOUND_ALLOW_PRIVATE, OUTBOUND_ALLOW_CIDRS). */
export function outboundPolicy(config: AppConfig): OutboundPolicy {
  const allowCidrs = config.OUTBOUND_ALLOW_CIDRS.split(',')
    .map((cidr) => cidr.trim())
    .filter(Boolean);
  return { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, allowCidrs };
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** Ranges `allowPrivate` opens; everything else that is not public unicast stays refused even in development. */
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'loopback', 'linkLocal', 'carrierGradeNat']);

/** Cloud instance-metadata endpoints hand out credentials; only an explicit allowCidrs entry opens them. */
const METADATA_ADDRESSES = ['169.254.169.254', '100.100.100.200', 'fd00:ec2::254'].map((address) =>
  ipaddr.parse(address).toString(),
);

/** How each refused ipaddr.js range reads in an error; ranges not listed read as "a reserved address". */
const RANGE_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  benchmarking: 'a benchmarking address',
  teredo: 'a Teredo address',
};

/** Only IPv6 2000::/3 is allocated for global unicast; ipaddr.js calls any unlisted address "unicast". */
const GLOBAL_UNICAST_V6: Cidr = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN: Cidr = ipaddr.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE: Cidr = ipaddr.parseCIDR('::/96');
const SIX_TO_FOUR: Cidr = ipaddr.parseCIDR('2002::/16');
const IPV4_TRANSLATED: Cidr = ipaddr.parseCIDR('::ffff:0:0:0/96');

const parsedCidrs = new WeakMap<string[], Cidr[]>();

/**
 * Why `address` may not be reached under `policy`, as a phrase such as "a loopback address", or null when it may.
 * Deny by default: only public unicast passes, plus what allowCidrs / allowPrivate open. IPv6 forms that carry an
 * IPv4 address (mapped, compatible, translated, NAT64, 6to4) are judged by that IPv4, so ::ffff:127.0.0.1 is loopback.
 */
export function refusedAddressReason(address: string, policy: OutboundPolicy): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  const ip = embeddedIPv4(parsed) ?? parsed;

  if (allowCidrsOf(policy).some((cidr) => matches(ip, cidr))) return null;
  if (METADATA_ADDRESSES.includes(ip.toString())) return 'a cloud metadata address';

  const range = ip.range();
  if (range === 'unicast') return ip.kind() === 'ipv6' && !matches(ip, GLOBAL_UNICAST_V6) ? 'a reserved address' : null;
  if (policy.allowPrivate && PRIVATE_RANGES.has(range)) return null;
  return RANGE_REASONS[range] ?? 'a reserved address';
}

/** Parses every allowCidrs entry, throwing a readable error for a bad one; call at start-up to fail early. */
export function assertValidOutboundPolicy(policy: OutboundPolicy): void {
  allowCidrsOf(policy);
}

/** The IPv4 address an IPv6 address carries and would reach, if it is one of the forms that embed one. */
function embeddedIPv4(ip: Address): ipaddr.IPv4 | null {
  if (ip.kind() !== 'ipv6') return null;
  const v6 = ip as ipaddr.IPv6;
  const bytes = v6.toByteArray();
  const lastFour = () => new ipaddr.IPv4(bytes.slice(12, 16));
  // Only the well-known NAT64 prefix has a fixed layout; the local-use 64:ff9b:1::/48 stays refused as reserved.
  if (v6.isIPv4MappedAddress() || matches(v6, IPV4_TRANSLATED) || matches(v6, NAT64_WELL_KNOWN)) return lastFour();
  // ::a.b.c.d (deprecated IPv4-compatible); :: and ::1 are IPv6's own unspecified and loopback.
  if (matches(v6, IPV4_COMPATIBLE) && !['unspecified', 'loopback'].includes(v6.range())) return lastFour();
  if (matches(v6, SIX_TO_FOUR)) return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

function allowCidrsOf(policy: OutboundPolicy): Cidr[] {
  let cidrs = parsedCidrs.get(policy.allowCidrs);
  if (!cidrs) {
    cidrs = policy.allowCidrs.map(parseCidr);
    parsedCidrs.set(policy.allowCidrs, cidrs);
  }
  return cidrs;
}

function parseCidr(entry: string): Cidr {
  const text = entry.trim();
  try {
    if (text.includes('/')) return parseCidrRange(text);
    const ip = ipaddr.process(text);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new Error(`outbound allow-list entry "${entry}" is not an IP address or CIDR range`);
  }
}

function matches(ip: Address, [range, bits]: Cidr): boolean {
  return ip.kind() === range.kind() && ip.match(range, bits);
}
