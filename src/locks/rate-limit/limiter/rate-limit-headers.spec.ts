import { describe, expect, it } from 'vitest';
import { DenyCache } from './deny-cache.js';
import { rateLimitField, rateLimitPolicyField, retryAfterSeconds } from './rate-limit-headers.js';
import { KeyHasher } from '../subjects/subject-resolver.js';

describe('RateLimit fields', () => {
  it('should write the current draft structured fields for a named policy', () => {
    const q = { name: 'search.per-ip', limit: 60, windowS: 6, remaining: 12.7, resetS: 4.2 };
    expect(rateLimitPolicyField(q)).toBe('"search.per-ip";q=60;w=6');
    expect(rateLimitField(q)).toBe('"search.per-ip";r=12;t=5');
  });

  it('should round Retry-After up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(0)).toBe(1);
  });
});

describe(DenyCache.name, () => {
  it('should refuse a request at least as costly until the retry time', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 4, 10);
    expect(c.refusing('k', 4, 500)).toEqual({ retryMs: 500, limit: 10 });
    expect(c.refusing('k', 8, 500)).toBeDefined();
    expect(c.refusing('k', 1, 500)).toBeUndefined();
  });

  it('should count its local refusals once, for penalty strikes', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 1, 10);
    c.refusing('k', 1, 100);
    c.refusing('k', 1, 200);
    expect(c.takeHits('k')).toBe(2);
    expect(c.takeHits('k')).toBe(0);
  });

  it('should let one request probe at the retry time and refuse the others until it answers', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 1, 10);
    expect(c.refusing('k', 1, 1_000)).toBeUndefined();
    expect(c.refusing('k', 1, 1_001)).toBeDefined();
    c.forget('k');
    expect(c.refusing('k', 1, 1_002)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('should let another request probe when a probe never answers', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 1, 10);
    expect(c.refusing('k', 1, 1_000)).toBeUndefined();
    expect(c.refusing('k', 1, 2_000)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('should stay within its size, dropping the oldest entry', () => {
    const c = new DenyCache(2);
    c.add('a', 10, 1, 1);
    c.add('b', 10, 1, 1);
    c.add('c', 10, 1, 1);
    expect(c.size).toBe(2);
    expect(c.refusing('a', 1, 0)).toBeUndefined();
    expect(c.refusing('c', 1, 0)).toBeDefined();
  });
});

describe(KeyHasher.name, () => {
  it('should put personal subjects in keys only as a keyed hash', () => {
    const h1 = new KeyHasher(Buffer.from('one-secret-one-secret'));
    const h2 = new KeyHasher(Buffer.from('two-secret-two-secret'));
    const ip = { value: '203.0.113.7', personal: true };
    expect(h1.part('ip', ip)).not.toContain('203');
    expect(h1.part('ip', ip)).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(h1.part('ip', ip)).toBe(h1.part('ip', ip));
    expect(h1.part('ip', ip)).not.toBe(h2.part('ip', ip));
  });

  it('should escape other subjects so they cannot break the key schema', () => {
    const h = new KeyHasher(Buffer.from('x'.repeat(16)));
    expect(h.part('app', { value: 'shop-1', personal: false })).toBe('shop-1');
    expect(h.part('command', { value: '/start:{x}', personal: false })).not.toMatch(/[:{}]/);
  });
});
