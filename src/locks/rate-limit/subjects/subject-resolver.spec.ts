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
});
