import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BloomFilter, HEADER_BYTES } from './bloom-filter.js';
import { BLOOM_HASH } from './bloom-hash.js';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe(BloomFilter.name, () => {
  it('should size m and k from n and p with the textbook formulas', () => {
    const f = BloomFilter.sized(1_000_000, 0.001);
    expect(f.m).toBe(Math.ceil((1_000_000 * Math.log(1000)) / Math.LN2 ** 2));
    expect(f.m).toBe(14_377_588);
    expect(f.k).toBe(10);
    expect(f.bits.length).toBe(Math.ceil(f.m / 8));
    expect(BloomFilter.sized(100, 0.01).k).toBe(7);
  });

  it('should refuse a p outside (0, 1)', () => {
    expect(() => BloomFilter.sized(10, 0)).toThrow(RangeError);
    expect(() => BloomFilter.sized(10, 1)).toThrow(RangeError);
  });

  it('should never report an added key absent, whatever the key', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 40 }), {
          minLength: 1,
          maxLength: 300,
        }),
        (keys) => {
          const f = BloomFilter.sized(keys.length, 0.01);
          for (const k of keys) f.add(k);
          return keys.every((k) => f.has(k));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('should measure a false-positive rate within [0.5p, 1.5p] on 100k absent keys', () => {
    const p = 0.01;
    const f = BloomFilter.sized(50_000, p);
    for (let i = 0; i < 50_000; i++) f.add(`term:${i}`);
    const rnd = seeded(7);
    let fp = 0;
    for (let i = 0; i < 100_000; i++) if (f.has(`absent:${Math.floor(rnd() * 1e12)}:${i}`)) fp++;
    expect(fp / 100_000).toBeGreaterThanOrEqual(0.5 * p);
    expect(fp / 100_000).toBeLessThanOrEqual(1.5 * p);
    expect(f.fillRatio).toBeGreaterThan(0.45);
    expect(f.fillRatio).toBeLessThan(0.55);
  });

  it('should report exactly the bits that add sets as positions', () => {
    const a = new BloomFilter(1_000, 5);
    const b = new BloomFilter(1_000, 5);
    for (const x of a.positions('köln')) b.bits[x >>> 3] = b.bits[x >>> 3]! | (0x80 >>> (x & 7));
    a.add('köln');
    expect(Buffer.from(b.bits).equals(Buffer.from(a.bits))).toBe(true);
  });

  it('should round-trip through its binary form with the same verdicts', () => {
    const f = BloomFilter.sized(1_000, 0.01);
    for (let i = 0; i < 1_000; i++) f.add(`k${i}`);
    const bytes = f.toBytes();
    expect(bytes.length).toBe(HEADER_BYTES + f.bits.length);
    const g = BloomFilter.fromBytes(bytes);
    expect([g.m, g.k, g.hash, g.setBits]).toEqual([f.m, f.k, BLOOM_HASH, f.setBits]);
    for (let i = 0; i < 2_000; i++) expect(g.has(`k${i}`)).toBe(f.has(`k${i}`));
  });

  it('should refuse bytes of another hash function, another format or a truncated array', () => {
    const bytes = BloomFilter.sized(100, 0.01).toBytes();
    const otherHash = Buffer.from(bytes);
    otherHash.writeUInt8(9, 5);
    expect(() => BloomFilter.fromBytes(otherHash)).toThrow(/rebuild/);
    const otherFormat = Buffer.from(bytes);
    otherFormat.writeUInt8(2, 4);
    expect(() => BloomFilter.fromBytes(otherFormat)).toThrow(/format/);
    expect(() => BloomFilter.fromBytes(bytes.subarray(0, bytes.length - 1))).toThrow(/length/);
    expect(() => BloomFilter.fromBytes(Buffer.from('not a filter at all'))).toThrow(/serialised/);
  });

  it('should union two filters of one shape and count the set bits', () => {
    const a = new BloomFilter(4_096, 4);
    const b = new BloomFilter(4_096, 4);
    a.add('x');
    b.add('y');
    a.union(b);
    expect(a.has('x') && a.has('y')).toBe(true);
    expect(a.setBits).toBe(BloomFilter.fromBytes(a.toBytes()).setBits);
    expect(() => a.union(new BloomFilter(4_096, 5))).toThrow(/same m and k/);
  });
});
