import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.js';
import { MemoryStoreBook, memoryStores } from './memory-stores.js';

/** Values are expiry times: stale once `now` reaches them. */
const map = (whenFull: 'evict-oldest' | 'refuse', max = 3, store = `t-${Math.random()}`) =>
  new BoundedMap<string, number>({
    store,
    maxEntries: max,
    whenFull,
    expired: (v, now) => v <= now,
  });

describe(BoundedMap.name, () => {
  it('should never hold more than its cap, dropping the least recently written first', () => {
    const store = `lru-${Math.random()}`;
    const m = map('evict-oldest', 3, store);
    for (const k of ['a', 'b', 'c']) m.set(k, 100, 0);
    m.set('a', 100, 0); // a rewrite makes `a` the newest
    expect(m.set('d', 100, 0)).toBe(true);
    expect([...m.entries()].map(([k]) => k)).toEqual(['c', 'a', 'd']);
    expect(m.size).toBe(3);
    expect(memoryStores.evictionTotals().get(store)).toBe(1);
  });

  it('should drop a stale entry before a live one, wherever it sits among the oldest', () => {
    const m = map('evict-oldest');
    m.set('live1', 100, 0);
    m.set('stale', 5, 0);
    m.set('live2', 100, 0);
    m.set('new', 100, 10);
    expect([...m.entries()].map(([k]) => k)).toEqual(['live1', 'live2', 'new']);
  });

  it('should refuse a new key when full of live entries, and keep every live one', () => {
    const store = `refuse-${Math.random()}`;
    const m = map('refuse', 3, store);
    for (const k of ['a', 'b', 'c']) m.set(k, 100, 0);
    expect(m.set('d', 100, 10)).toBe(false);
    expect(m.has('d')).toBe(false);
    expect([...m.entries()].map(([k]) => k)).toEqual(['a', 'b', 'c']);
    expect(memoryStores.refusalTotals().get(store)).toBe(1);
    // a known key is still written; once an entry lapses the new key fits
    expect(m.set('a', 200, 10)).toBe(true);
    expect(m.set('d', 100, 100)).toBe(true);
    expect(m.has('b')).toBe(false);
  });

  it('should make room for several keys at once or for none', () => {
    const m = map('refuse', 3);
    m.set('a', 100, 0);
    m.set('b', 5, 0);
    expect(m.room(3, 10)).toBe(false);
    expect(m.room(2, 10)).toBe(true); // `b` had lapsed
    expect(m.size).toBe(1);
  });

  it('should find a stale entry behind more live ones than one scan looks at (full sweep)', () => {
    const m = map('refuse', 100);
    for (let i = 0; i < 99; i++) m.set(`live${i}`, 1_000, 0);
    m.set('stale', 5, 0);
    expect(m.set('new', 1_000, 10)).toBe(true);
    expect(m.has('stale')).toBe(false);
  });

  it('should report its entries to the book, per store, while it lives', () => {
    const book = new MemoryStoreBook();
    const a = { size: 2 };
    const b = { size: 3 };
    book.track('x', a);
    book.track('x', b);
    book.track('y', { size: 1 });
    expect(Object.fromEntries(book.entries())).toEqual({ x: 5, y: 1 });
  });
});
