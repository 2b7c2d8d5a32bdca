import { describe, expect, it } from 'vitest';
import { CidrSet } from '../../../http/cidr.js';
import type { RequestState } from '../../../http/request-state.js';
import type { SubjectExtractor } from '../extensions/rate-limit-extensions.js';
import { SubjectResolver } from './subject-resolver.js';

const resolver = new SubjectResolver(new CidrSet([]), 'x-user-id');
const ctx = (state: RequestState, headers: Record<string, string> = {}) => ({
  req: { headers, method: 'GET', url: '/x', socket: { remoteAddress: '203.0.113.9' } as never },
  state,
  route: '/x',
});
const sender: SubjectExtractor = () => ({ value: 'tg-7', personal: true });

describe(SubjectResolver.name, () => {
  it('should take a built-in subject first, and the product extractor only when there is none', () => {
    expect(resolver.resolve('user', ctx({ userId: 'u1' }), sender)).toEqual({
      value: 'u1',
      personal: true,
    });
    expect(resolver.resolve('user', ctx({}, { 'x-user-id': ' u2 ' }), sender)?.value).toBe('u2');
    expect(resolver.resolve('user', ctx({}), sender)).toEqual({ value: 'tg-7', personal: true });
    expect(resolver.resolve('user', ctx({}), undefined)).toBeUndefined();
  });

  it('should find no subject for a dimension without a built-in or an extractor', () => {
    for (const d of ['command', 'chat', 'bot'] as const) {
      expect(resolver.resolve(d, ctx({}), undefined)).toBeUndefined();
      expect(resolver.resolve(d, ctx({}), sender)?.value).toBe('tg-7');
    }
  });

  it('should resolve app, ip, route and global from the request state', () => {
    const c = ctx({ appId: 'shop' });
    expect(resolver.resolve('app', c, undefined)).toEqual({ value: 'shop', personal: false });
    expect(resolver.resolve('ip', c, undefined)).toEqual({ value: '203.0.113.9', personal: true });
    expect(c.state.clientIp).toBe('203.0.113.9');
    expect(resolver.resolve('route', c, undefined)).toEqual({ value: 'GET/x', personal: false });
    expect(resolver.resolve('global', c, undefined)).toEqual({ value: '-', personal: false });
  });

  it('should key an IPv6 client by its /64 (configurable) and IPv4 by its address', () => {
    const v6 = (addr: string, prefix?: number) =>
      new SubjectResolver(new CidrSet([]), undefined, prefix).resolve(
        'ip',
        { ...ctx({}), req: { ...ctx({}).req, socket: { remoteAddress: addr } as never } },
        undefined,
      )?.value;
    expect(v6('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(v6('2001:DB8:1:2::7')).toBe('2001:db8:1:2::/64');
    expect(v6('2001:db8:1:2:3:4:5:6', 48)).toBe('2001:db8:1::/48');
    expect(v6('2001:db8:1:2:3:4:5:6', 128)).toBe('2001:db8:1:2:3:4:5:6');
    expect(v6('::ffff:198.51.100.4')).toBe('198.51.100.4');
  });
});
