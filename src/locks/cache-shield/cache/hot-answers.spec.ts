import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../common/clock.js';
import { MemoryResultCacheStore } from '../store/memory-result-cache.store.js';
import type { ResultCacheStore } from '../store/result-cache.store.js';
import { AnswerCache } from './answer-cache.js';
import { HotAnswers } from './hot-answers.js';

/** The shared store (as Redis would be), counting reads; another instance writes through `inner`. */
class CountingStore implements ResultCacheStore {
  readonly shared = true;
  reads = 0;
  readonly inner = new MemoryResultCacheStore(100, systemClock);
  get(key: string) {
    this.reads++;
    return this.inner.get(key);
  }
  set(key: string, value: string, ttlMs: number) {
    return this.inner.set(key, value, ttlMs);
  }
}

const ttl = { freshMs: 10_000, staleMs: 60_000, jitter: 0 };

function setup(hotEntries = 10) {
  const clock = { t: 1_000, now: () => clock.t, random: Math.random };
  const store = new CountingStore();
  let up = true;
  const cache = new AnswerCache(store, 'p', () => undefined, {
    isUp: () => up,
    backoffMs: 1_000,
    clock,
    hotEntries,
  });
  return { clock, store, cache, down: () => (up = false) };
}

describe(HotAnswers.name, () => {
  it('should answer a fresh entry of the current generation without reading the shared store', async () => {
    const { store, cache } = setup();
    await cache.put('k', { body: { total: 1 }, empty: false, gen: 'g1' }, ttl);
    expect((await cache.get('k', 'g1'))?.body).toEqual({ total: 1 });
    expect((await cache.get('k', 'g1'))?.body).toEqual({ total: 1 });
    expect(store.reads).toBe(1);
  });

  it('should read the shared store again once the generation changed (a build or add anywhere)', async () => {
    const { store, cache } = setup();
    await cache.put('k', { body: { total: 1 }, empty: false, gen: 'g1' }, ttl);
    await cache.get('k', 'g1');
    await cache.put('k', { body: { total: 2 }, empty: false, gen: 'g2' }, ttl);
    expect((await cache.get('k', 'g2'))?.body).toEqual({ total: 2 });
    expect(store.reads).toBe(2);
  });

  it('should read the shared store again once the entry is no longer fresh, and see a newer answer', async () => {
    const { clock, store, cache } = setup();
    await cache.put('k', { body: { total: 1 }, empty: false, gen: 'g1' }, ttl);
    await cache.get('k', 'g1');
    clock.t = 11_000; // freshUntil of the first answer
    await cache.put('k', { body: { total: 3 }, empty: false, gen: 'g1' }, ttl);
    expect((await cache.get('k', 'g1'))?.body).toEqual({ total: 3 });
    expect(store.reads).toBe(2);
  });

  it('should keep no stale entry and serve nothing while the shared store is bypassed', async () => {
    const { clock, store, cache, down } = setup();
    await cache.put('k', { body: { total: 1 }, empty: false, gen: 'g1' }, ttl);
    clock.t = 12_000; // stale: still in the store, never in process
    expect((await cache.get('k', 'g1'))?.freshUntil).toBe(11_000);
    expect((await cache.get('k', 'g1'))?.freshUntil).toBe(11_000);
    expect(store.reads).toBe(2);
    clock.t = 1_000;
    await cache.get('k', 'g1');
    down();
    expect(await cache.get('k', 'g1')).toBeUndefined();
  });

  it('should keep at most maxEntries, dropping the oldest, and nothing when 0', () => {
    const hot = new HotAnswers(2);
    const e = { body: 1, empty: false, gen: 'g', freshUntil: 10 };
    hot.put('a', e, 'g', 0);
    hot.put('b', e, 'g', 0);
    hot.get('a', 'g', 0);
    hot.put('c', e, 'g', 0);
    expect([hot.get('a', 'g', 0), hot.get('b', 'g', 0), hot.get('c', 'g', 0)]).toEqual([
      undefined,
      e,
      e,
    ]);
    const off = new HotAnswers(0);
    off.put('a', e, 'g', 0);
    expect(off.size).toBe(0);
  });
});
