import { describe, expect, it } from 'vitest';
import { DenyCache } from './deny-cache.js';

describe(DenyCache.name, () => {
  it('should refuse a request at least as costly until the retry time', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 4, 10, 0);
    expect(c.refusing('k', 4, 500)).toEqual({ retryMs: 500, limit: 10 });
    expect(c.refusing('k', 8, 500)).toBeDefined();
    expect(c.refusing('k', 1, 500)).toBeUndefined();
  });

  it('should count its local refusals once, for penalty strikes', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 1, 10, 0);
    c.refusing('k', 1, 100);
    c.refusing('k', 1, 200);
    expect(c.takeHits('k')).toBe(2);
    expect(c.takeHits('k')).toBe(0);
  });

  it('should let one request probe at the retry time and refuse the others until it answers', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 1, 10, 0);
    expect(c.refusing('k', 1, 1_000)).toBeUndefined();
    expect(c.refusing('k', 1, 1_001)).toBeDefined();
    c.forget('k');
    expect(c.refusing('k', 1, 1_002)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('should let another request probe when a probe never answers', () => {
    const c = new DenyCache(10);
    c.add('k', 1_000, 1, 10, 0);
    expect(c.refusing('k', 1, 1_000)).toBeUndefined();
    expect(c.refusing('k', 1, 2_000)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('should stay within its size, dropping the oldest entry', () => {
    const c = new DenyCache(2);
    c.add('a', 10, 1, 1, 0);
    c.add('b', 10, 1, 1, 0);
    c.add('c', 10, 1, 1, 0);
    expect(c.size).toBe(2);
    expect(c.refusing('a', 1, 0)).toBeUndefined();
    expect(c.refusing('c', 1, 0)).toBeDefined();
  });
});
