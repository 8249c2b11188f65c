import { assertValidOutboundPolicy, DEFAULT_OUTBOUND_POLICY, refusedAddressReason } from './outbound-policy';

describe('refusedAddressReason', () => {
  it.each([
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['2001:4860:4860::8888', null],
    ['2606:4700:4700::1111', null],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::808:808', null],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['169.254.1.1', 'a link-local address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.127.255.255', 'a carrier-grade NAT address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['240.0.0.1', 'a reserved address'],
    ['192.0.2.1', 'a reserved address'],
    ['198.51.100.7', 'a reserved address'],
    ['203.0.113.9', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['2001:2::1', 'a benchmarking address'],
    ['2001:db8::1', 'a reserved address'],
    ['100::1', 'a reserved address'],
    ['4000::1', 'a reserved address'],
    ['64:ff9b:1::a00:1', 'a reserved address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo address'],
    // IPv6 forms that carry an IPv4 address are judged by it.
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:169.254.169.254', 'a cloud metadata address'],
    ['::ffff:10.1.2.3', 'a private address'],
    ['::127.0.0.1', 'a loopback address'],
    ['::ffff:0:10.0.0.1', 'a private address'],
    ['64:ff9b::127.0.0.1', 'a loopback address'],
    ['64:ff9b::a9fe:a9fe', 'a cloud metadata address'],
    ['2002:7f00:1::', 'a loopback address'],
    ['2002:c0a8:101::1', 'a private address'],
    ['example.com', 'not an IP address'],
    ['', 'not an IP address'],
  ])('%s → %s', (address, reason) => {
    expect(refusedAddressReason(address, DEFAULT_OUTBOUND_POLICY)).toBe(reason);
  });

  it('lets allowPrivate open private, loopback, link-local and CGNAT, but nothing else', () => {
    const policy = { allowPrivate: true, allowCidrs: [] };
    for (const address of [
      '10.0.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      'fd12::1',
      '169.254.1.1',
      'fe80::1',
      '100.64.0.1',
    ]) {
      expect(refusedAddressReason(address, policy)).toBeNull();
    }
    expect(refusedAddressReason('169.254.169.254', policy)).toBe('a cloud metadata address');
    expect(refusedAddressReason('0.0.0.0', policy)).toBe('an unspecified address');
    expect(refusedAddressReason('224.0.0.1', policy)).toBe('a multicast address');
    expect(refusedAddressReason('255.255.255.255', policy)).toBe('a broadcast address');
  });

  it('lets allowCidrs open exactly the listed ranges, IPv4-mapped forms included', () => {
    const policy = {
      allowPrivate: false,
      allowCidrs: ['10.20.0.0/16', '127.0.0.2/32', 'fd00:1::/32', '::ffff:192.168.7.0/120', '169.254.169.254'],
    };
    expect(refusedAddressReason('10.20.3.4', policy)).toBeNull();
    expect(refusedAddressReason('::ffff:10.20.3.4', policy)).toBeNull();
    expect(refusedAddressReason('10.21.0.1', policy)).toBe('a private address');
    expect(refusedAddressReason('127.0.0.2', policy)).toBeNull();
    expect(refusedAddressReason('127.0.0.1', policy)).toBe('a loopback address');
    expect(refusedAddressReason('fd00:1::5', policy)).toBeNull();
    expect(refusedAddressReason('fd00:2::5', policy)).toBe('a private address');
    expect(refusedAddressReason('192.168.7.9', policy)).toBeNull();
    expect(refusedAddressReason('169.254.169.254', policy)).toBeNull();
  });

  it('names a malformed allowCidrs entry', () => {
    expect(() => assertValidOutboundPolicy({ allowPrivate: false, allowCidrs: ['10.0.0.0/8', 'intranet'] })).toThrow(
      'outbound allow-list entry "intranet" is not an IP address or CIDR range',
    );
    expect(() => assertValidOutboundPolicy({ allowPrivate: false, allowCidrs: ['10.0.0.0/33'] })).toThrow(
      /10\.0\.0\.0\/33/,
    );
  });
});
