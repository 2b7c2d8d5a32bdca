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

describe(`${BoundedMap.name} with shares`, () => {
  /** Values are `<share>:<expiry>`. */
  const shared = (max: number, store = `s-${Math.random()}`) =>
    new BoundedMap<string, string>({
      store,
      maxEntries: max,
      whenFull: 'evict-oldest',
      expired: (v, now) => Number(v.split(':')[1]) <= now,
      shareOf: (v) => v.split(':')[0]!,
    });
  const keys = (m: BoundedMap<string, string>) => [...m.entries()].map(([k]) => k);

  it("should drop the flooding share's own oldest entries, never those of a share holding fewer", () => {
    const store = `flood-${Math.random()}`;
    const m = shared(6, store);
    for (const k of ['a1', 'a2']) m.set(k, 'a:100', 0);
    m.set('b1', 'b:100', 0);
    for (let i = 0; i < 100; i++) m.set(`x${i}`, 'x:100', 0);
    expect(keys(m)).toEqual(['a1', 'a2', 'b1', 'x97', 'x98', 'x99']);
    expect([m.shareSize('a'), m.shareSize('b'), m.shareSize('x')]).toEqual([2, 1, 3]);
    expect(memoryStores.evictionTotals().get(store)).toBe(97);
  });

  it('should take from the share holding the most (the new key counted), its least recently used first', () => {
    const m = shared(4);
    for (const k of ['a1', 'a2', 'a3']) m.set(k, 'a:100', 0);
    m.touch('a1');
    m.set('b1', 'b:100', 0);
    // `b` writes a3 again: the entry becomes b's and its newest.
    m.set('a3', 'b:100', 0);
    expect([m.shareSize('a'), m.shareSize('b')]).toEqual([2, 2]);
    // b would hold 3 with b2, a 2: b's least recently used (b1) goes.
    m.set('b2', 'b:100', 0);
    expect(keys(m)).toEqual(['a2', 'a1', 'a3', 'b2']);
    // a would hold 3 with a4, b 2: a's least recently used (a2) goes.
    m.set('a4', 'a:100', 0);
    expect(keys(m)).toEqual(['a1', 'a3', 'b2', 'a4']);
  });

  it('should make the writer lose its own entry on a tie', () => {
    const m = shared(3);
    for (const k of ['a1', 'a2']) m.set(k, 'a:100', 0);
    m.set('b1', 'b:100', 0);
    // b would hold 2 with b2, as many as a: b's own b1 goes, a keeps both.
    m.set('b2', 'b:100', 0);
    expect(keys(m)).toEqual(['a1', 'a2', 'b2']);
  });

  it('should drop a stale entry of any share before a live one of the largest', () => {
    const m = shared(3);
    m.set('a1', 'a:5', 0);
    m.set('x1', 'x:100', 0);
    m.set('x2', 'x:100', 0);
    m.set('x3', 'x:100', 10);
    expect(keys(m)).toEqual(['x1', 'x2', 'x3']);
  });

  it('should forget a share once it holds nothing, and clear every share', () => {
    const m = shared(3);
    m.set('a1', 'a:100', 0);
    m.delete('a1');
    expect(m.shareSize('a')).toBe(0);
    m.set('b1', 'b:100', 0);
    m.clear();
    expect([m.size, m.shareSize('b')]).toEqual([0, 0]);
  });
});
