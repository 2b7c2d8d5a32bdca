import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../common/clock.js';
import { MemoryResultCacheStore } from '../store/memory-result-cache.store.js';
import type { ResultCacheStore } from '../store/result-cache.store.js';
import { AnswerCache } from './answer-cache.js';

/** A store that fails like an unreachable Redis until told otherwise. */
class FlakyStore implements ResultCacheStore {
  readonly shared = true;
  down = false;
  calls = 0;
  private readonly inner = new MemoryResultCacheStore(100, systemClock);
  async get(key: string) {
    this.calls++;
    if (this.down) throw new Error('connect ECONNREFUSED');
    return this.inner.get(key);
  }
  async set(key: string, value: string, ttlMs: number) {
    this.calls++;
    if (this.down) throw new Error('connect ECONNREFUSED');
    return this.inner.set(key, value, ttlMs);
  }
}

describe(AnswerCache.name, () => {
  const ttl = { freshMs: 10_000, staleMs: 60_000, jitter: 0 };

  it('should hash the request key, so no query text reaches a store key', () => {
    const cache = new AnswerCache(
      new MemoryResultCacheStore(10, systemClock),
      'shield:{t:rampart}:r',
      () => undefined,
      { isUp: () => true, backoffMs: 1_000, clock: systemClock },
    );
    const key = cache.key('search', 'john smith street');
    expect(key).toMatch(/^shield:\{t:rampart\}:r:search:[A-Za-z0-9_-]{32}$/);
    expect(key).not.toContain('smith');
    expect(cache.key('search', 'a')).not.toBe(cache.key('search-item', 'a'));
  });

  it('should give each app its own store key of a request key, none naming the app, and shared keys apart', () => {
    const cache = new AnswerCache(
      new MemoryResultCacheStore(10, systemClock),
      'shield:{t:rampart}:r',
      () => undefined,
      { isUp: () => true, backoffMs: 1_000, clock: systemClock },
    );
    const keys = [
      cache.key('p', 'paris'),
      cache.key('p', 'paris', 'app-a'),
      cache.key('p', 'paris', 'app-b'),
      cache.key('p', 'paris', ''),
      // No request key of one scope can spell another scope's input.
      cache.key('p', 'aapp-a\u0000paris'),
      cache.key('p', '\u0000paris', 'app-a'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(k).not.toContain('app-');
    expect(cache.key('p', 'paris', 'app-a')).toBe(keys[1]);
  });

  it('should give the same store key for a request key however many others came between (memo bounded)', () => {
    const cache = new AnswerCache(
      new MemoryResultCacheStore(10, systemClock),
      'shield:{t:rampart}:r',
      () => undefined,
      { isUp: () => true, backoffMs: 1_000, clock: systemClock },
    );
    const first = cache.key('search', 'paris');
    expect(cache.key('search', 'paris')).toBe(first);
    for (let i = 0; i < 25_000; i++) cache.key('search', `junk ${i}`);
    expect(cache.key('search', 'paris')).toBe(first);
    expect(cache.key('search', 'paris ')).not.toBe(first);
    expect(new Set([0, 1, 2].map((i) => cache.key('search', `junk ${i}`))).size).toBe(3);
  });

  it('should keep the body, emptiness, generation and freshness of an answer', async () => {
    let now = 1_000;
    const cache = new AnswerCache(
      new MemoryResultCacheStore(10, systemClock),
      'p',
      () => undefined,
      {
        isUp: () => true,
        backoffMs: 1_000,
        clock: { now: () => now, random: Math.random },
      },
    );
    await cache.put('k', { body: { total: 0, items: [] }, empty: true, gen: '3.4:1.0' }, ttl);
    expect(await cache.get('k')).toEqual({
      body: { total: 0, items: [] },
      empty: true,
      gen: '3.4:1.0',
      freshUntil: 11_000,
    });
    now = 20_000;
    expect((await cache.get('k'))?.freshUntil).toBe(11_000);
  });

  it('should spread fresh TTLs by ± jitter', async () => {
    let r = 0;
    const cache = new AnswerCache(
      new MemoryResultCacheStore(10, systemClock),
      'p',
      () => undefined,
      {
        isUp: () => true,
        backoffMs: 1_000,
        clock: { now: () => 0, random: () => r },
      },
    );
    await cache.put('lo', { body: 1, empty: false, gen: 'g' }, { ...ttl, jitter: 0.1 });
    r = 0.999_999;
    await cache.put('hi', { body: 1, empty: false, gen: 'g' }, { ...ttl, jitter: 0.1 });
    expect((await cache.get('lo'))?.freshUntil).toBe(9_000);
    expect((await cache.get('hi'))?.freshUntil).toBe(11_000);
  });

  it('should write nothing when the fresh TTL is 0', async () => {
    const cache = new AnswerCache(
      new MemoryResultCacheStore(10, systemClock),
      'p',
      () => undefined,
      {
        isUp: () => true,
        backoffMs: 1_000,
        clock: systemClock,
      },
    );
    await cache.put('k', { body: 1, empty: false, gen: 'g' }, { ...ttl, freshMs: 0 });
    expect(await cache.get('k')).toBeUndefined();
  });

  it('should turn store failures into misses and leave the store alone for the back-off time', async () => {
    let now = 0;
    const store = new FlakyStore();
    const errors: string[] = [];
    const cache = new AnswerCache(store, 'p', (op) => errors.push(op), {
      isUp: () => true,
      backoffMs: 1_000,
      clock: { now: () => now, random: Math.random },
    });
    await cache.put('k', { body: 1, empty: false, gen: 'g' }, ttl);
    store.down = true;
    expect(await cache.get('k')).toBeUndefined();
    expect(errors).toEqual(['get']);
    const calls = store.calls;
    await cache.put('k2', { body: 2, empty: false, gen: 'g' }, ttl);
    expect(await cache.get('k')).toBeUndefined();
    expect(store.calls).toBe(calls);
    store.down = false;
    now = 1_001;
    expect((await cache.get('k'))?.body).toBe(1);
  });

  it('should not ask a store that reports itself down', async () => {
    const store = new FlakyStore();
    const cache = new AnswerCache(store, 'p', () => undefined, {
      isUp: () => false,
      backoffMs: 1_000,
      clock: systemClock,
    });
    await cache.put('k', { body: 1, empty: false, gen: 'g' }, ttl);
    expect(await cache.get('k')).toBeUndefined();
    expect(store.calls).toBe(0);
  });
});
