import { describe, expect, it } from 'vitest';
import { addressGroup, canonicalIp, CIDR_MEMO_MAX, CidrSet } from './cidr.js';

describe(canonicalIp.name, () => {
  it('should give one textual form to every spelling of an IPv6 address', () => {
    for (const t of [
      '2001:db8::1',
      '2001:db8:0:0:0:0:0:1',
      '2001:DB8::1',
      '[2001:db8::1]:1234',
      '[2001:db8::1]',
      ' 2001:0db8::0001 ',
    ]) {
      expect(canonicalIp(t)).toBe('2001:db8::1');
    }
  });

  it('should strip a port from IPv4 and the mapped prefix from IPv4-in-IPv6', () => {
    expect(canonicalIp('192.0.2.7:8080')).toBe('192.0.2.7');
    expect(canonicalIp('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(canonicalIp('::FFFF:0a00:0001')).toBe('10.0.0.1');
  });

  it('should refuse what is not an address', () => {
    for (const t of [
      'abc',
      '010.001.001.001',
      '1.2.3',
      '',
      '2001:db8::1%eth0',
      '1.2.3.4.5',
      '[1.2.3.4]x',
    ]) {
      expect(canonicalIp(t)).toBeUndefined();
    }
  });
});

describe(addressGroup.name, () => {
  it('should group IPv6 addresses by their /64 and leave IPv4 alone', () => {
    expect(addressGroup('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8:1:2:ffff::', 48)).toBe('2001:db8:1::/48');
    expect(addressGroup('2001:db8::1', 128)).toBe('2001:db8::1');
    expect(addressGroup('203.0.113.9')).toBe('203.0.113.9');
  });

  it('should give 80 addresses of one /64 one group', () => {
    const groups = new Set(
      Array.from({ length: 80 }, (_, i) => addressGroup(`2001:db8:7:7::${(i + 1).toString(16)}`)),
    );
    expect(groups.size).toBe(1);
  });
});

describe(CidrSet.name, () => {
  it('should answer the same for an address asked again, spelled any way, and for one outside', () => {
    const set = new CidrSet(['10.0.0.0/8', '2001:db8::/32']);
    for (let i = 0; i < 2; i++) {
      expect(set.has('10.1.2.3')).toBe(true);
      expect(set.has('::ffff:10.1.2.3')).toBe(true);
      expect(set.has('2001:DB8::1')).toBe(true);
      expect(set.has('11.1.2.3')).toBe(false);
      expect(set.has('not-an-ip')).toBe(false);
    }
  });

  it('should remember at most CIDR_MEMO_MAX addresses and still answer right past it', () => {
    const set = new CidrSet(['10.0.0.0/8']);
    for (let i = 0; i < CIDR_MEMO_MAX * 3; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      expect(set.has(ip)).toBe(true);
      expect(set.has(`11.${(i >> 8) & 255}.0.${i & 255}`)).toBe(false);
      expect(set.remembered).toBeLessThanOrEqual(CIDR_MEMO_MAX);
    }
  });
});
