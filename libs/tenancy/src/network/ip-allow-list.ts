import { IpRange, parseIpEntry } from '@gateway/contracts';
import ipaddr from 'ipaddr.js';

/**
 * An application's IP whitelist: addresses and CIDR ranges, IPv4 and IPv6. IPv4-mapped IPv6 addresses
 * (::ffff:10.1.2.3) are compared as the IPv4 address they carry, on both sides.
 */
export class IpAllowList {
  private readonly ranges: IpRange[];

  constructor(entries: string[]) {
    this.ranges = entries.map(parseIpEntry);
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
