import { isValidIpEntry } from '@gateway/contracts';
import { IpAllowList } from './ip-allow-list';

describe('IpAllowList', () => {
  it('allows everyone when empty', () => {
    expect(new IpAllowList([]).allows('203.0.113.9')).toBe(true);
  });

  it.each([
    [['203.0.113.9'], '203.0.113.9', true],
    [['203.0.113.9'], '203.0.113.10', false],
    [['10.0.0.0/8'], '10.200.1.2', true],
    [['10.0.0.0/8'], '11.0.0.1', false],
    [['2001:db8::/32'], '2001:db8:1::7', true],
    [['2001:db8::/32'], '2001:db9::7', false],
    [['::1'], '::1', true],
    [['10.0.0.0/8'], '::ffff:10.1.2.3', true],
    [['::ffff:10.0.0.0/104'], '10.9.9.9', true],
    [['::ffff:192.0.2.1'], '192.0.2.1', true],
    [['192.0.2.1'], '::ffff:192.0.2.1', true],
    [['0.0.0.0/0'], '2001:db8::1', false],
    [['10.0.0.0/8'], 'not-an-ip', false],
  ])('%j %s → %s', (entries, address, allowed) => {
    expect(new IpAllowList(entries).allows(address)).toBe(allowed);
  });

  it('tells valid entries from invalid ones', () => {
    expect(['10.0.0.0/8', '::1', '2001:db8::/32', '1.2.3.4'].every(isValidIpEntry)).toBe(true);
    expect(['10.0.0.0/33', 'example.com', '1.2.3', ''].some(isValidIpEntry)).toBe(false);
  });
});
