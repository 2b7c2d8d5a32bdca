import { describe, expect, it } from 'vitest';
import { CidrSet } from '../../../http/cidr.js';
import { header } from '../../../http/http-context.js';
import { RateLimitExtensions } from '../extensions/rate-limit-extensions.js';
import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';
import { KeyHasher } from '../subjects/key-hasher.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { compileSlice } from './compile-policy.js';
import { activeRules, buildBuckets } from './request-buckets.js';

const slice: RateLimitSlice = {
  mode: 'enforce',
  rules: [
    { name: 'chat', dimension: 'chat', capacity: 5, rate: '1/s' },
    { name: 'per-app', dimension: 'app', capacity: 10, rate: '1/s' },
  ],
};
/** A product's `chat` subject and scale, both from headers here (the scale sees the subject). */
const extensions = new RateLimitExtensions();
extensions.register({
  subjects: {
    chat: (c) => {
      const id = header(c.req, 'x-chat');
      return id ? { value: id, personal: true } : undefined;
    },
  },
  scales: { chat: (c, s) => (s.value === '42' ? Number(header(c.req, 'x-scale')) : 1) },
});
const policy = compileSlice(slice, 'p', extensions);
const subjects = new SubjectResolver(new CidrSet([]), undefined);
const hasher = new KeyHasher(Buffer.from('k'.repeat(32)));

function capacities(headers: Record<string, string>): number[] {
  const req = { headers, method: 'POST', url: '/x', socket: {} as never };
  const c = { req, state: { appId: 'shop' }, route: '/x', policy: { locks: {} } };
  const active = activeRules(policy, c, subjects, () => undefined);
  const opts = { tag: '{t}', hasher, cost: 1, scale: 2, critical: false };
  return buildBuckets(policy, active, opts).buckets.map((b) => b.capacity);
}

describe('a product scale of one dimension', () => {
  it("should multiply only that dimension's rules (with the lane's scale), per request and subject", () => {
    expect(capacities({ 'x-chat': '42', 'x-scale': '4' })).toEqual([40, 20]);
    expect(capacities({ 'x-chat': '7', 'x-scale': '4' })).toEqual([10, 20]);
  });

  it('should count a scale that is not finite or not positive as 1', () => {
    for (const bad of ['0', '-2', 'NaN', 'Infinity'])
      expect(capacities({ 'x-chat': '42', 'x-scale': bad })).toEqual([10, 20]);
  });

  it('should refuse a second scale of the same dimension', () => {
    expect(() => extensions.register({ scales: { chat: () => 2 } })).toThrow(/two scales/);
  });
});
