import ipaddr from 'ipaddr.js';

export type IpRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * An IP whitelist entry as an address and prefix length: an address, or a CIDR range, IPv4 or IPv6. IPv4-mapped
 * IPv6 ranges (::ffff:10.0.0.0/104) become the IPv4 range they carry. Throws a readable error for anything else.
 */
export function parseIpEntry(entry: string): IpRange {
  const text = entry.trim();
  if (text.includes('/')) return parseCidrRange(text);
  // Four-part decimal only: ipaddr.js also accepts shorthand such as "1.2.3", which nobody means in a whitelist.
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) && !ipaddr.IPv6.isValid(text)) {
    throw new Error(`"${entry}" is not an IP address or CIDR range`);
  }
  const ip = ipaddr.process(text);
  return [ip, ip.kind() === 'ipv4' ? 32 : 128];
}

export function isValidIpEntry(entry: string): boolean {
  try {
    parseIpEntry(entry);
    return true;
  } catch {
    return false;
  }
}

/** A CIDR range; ::ffff:10.0.0.0/104 means 10.0.0.0/8, as addresses are compared in their IPv4 form. */
export function parseCidrRange(text: string): IpRange {
  const [range, bits] = ipaddr.parseCIDR(text);
  if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(range as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [range, bits];
}
