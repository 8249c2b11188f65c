import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * An application's IP whitelist: addresses and CIDR ranges, IPv4 and IPv6. IPv4-mapped IPv6 addresses
 * (::ffff:10.1.2.3) are compared as the IPv4 address they carry, on both sides.
 */
export class IpAllowList {
  private readonly ranges: Range[];

  constructor(entries: string[]) {
    this.ranges = entries.map(parseEntry);
  }

  get empty(): boolean {
    return this.ranges.length === 0;
  }

  allows(address: string): boolean {
    if (this.empty) return true;
    if (!ipaddr.isValid(address)) return false;
    const ip = ipaddr.process(address);
    return this.ranges.some(([range, bits]) => ip.kind() === range.kind() && ip.match(range, bits));
  }
}

/** Throws a readable error for an entry that is neither an address nor a CIDR range. */
export function parseEntry(entry: string): Range {
  const text = entry.trim();
  if (text.includes('/')) {
    const [range, bits] = ipaddr.parseCIDR(text);
    if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return [(range as ipaddr.IPv6).toIPv4Address(), bits - 96];
    }
    return [range, bits];
  }
  // Four-part decimal only: ipaddr.js also accepts shorthand such as "1.2.3", which nobody means in a whitelist.
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) && !ipaddr.IPv6.isValid(text)) {
    throw new Error(`"${entry}" is not an IP address or CIDR range`);
  }
  const ip = ipaddr.process(text);
  return [ip, ip.kind() === 'ipv4' ? 32 : 128];
}

export function isValidAllowListEntry(entry: string): boolean {
  try {
    parseEntry(entry);
    return true;
  } catch {
    return false;
  }
}
