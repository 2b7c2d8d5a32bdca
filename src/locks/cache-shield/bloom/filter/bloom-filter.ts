import { filterBytes, readFilterBytes } from './bloom-bytes.js';
import { BLOOM_HASH, HASH_OUT, hash2 } from './bloom-hash.js';

/** Largest filter in bits (256 MiB): far beyond any corpus this service indexes, and below 2^32. */
export const MAX_BITS = 2 ** 31;
// The binary form lives in bloom-bytes.ts; HEADER_BYTES is re-exported for the stores.
export { HEADER_BYTES } from './bloom-bytes.js';

const POPCOUNT = new Uint8Array(256).map((_, i) => {
  let n = 0;
  for (let v = i; v; v >>= 1) n += v & 1;
  return n;
});

/**
 * A classic Bloom filter: m bits in a Uint8Array (bit x is the
 * most-significant-first bit x of the array, as Redis SETBIT numbers them),
 * k positions per key by enhanced double hashing over {@link hash2}.
 */
export class BloomFilter {
  private setCount: number;

  constructor(
    /** Bits. */
    readonly m: number,
    /** Positions per key. */
    readonly k: number,
    readonly bits: Uint8Array = new Uint8Array(Math.ceil(m / 8)),
  ) {
    if (!Number.isInteger(m) || m < 8 || m > MAX_BITS)
      throw new RangeError(`bloom: m must be an integer in 8..${MAX_BITS}`);
    if (!Number.isInteger(k) || k < 1 || k > 64)
      throw new RangeError('bloom: k must be an integer in 1..64');
    if (bits.length !== Math.ceil(m / 8)) throw new RangeError('bloom: bit array does not match m');
    this.setCount = countBits(bits);
  }

  /** Sized for `n` keys at false-positive rate `p`: m = −n·ln p / (ln 2)², k = (m/n)·ln 2. */
  static sized(n: number, p: number): BloomFilter {
    if (!(p > 0 && p < 1)) throw new RangeError('bloom: p must lie strictly between 0 and 1');
    const items = Math.max(1, Math.ceil(n));
    const m = Math.min(
      MAX_BITS,
      Math.max(64, Math.ceil((-items * Math.log(p)) / (Math.LN2 * Math.LN2))),
    );
    const k = Math.min(64, Math.max(1, Math.round((m / items) * Math.LN2)));
    return new BloomFilter(m, k);
  }

  /** Id of the hash function this filter uses. */
  get hash(): string {
    return BLOOM_HASH;
  }

  /** Bits set to 1. */
  get setBits(): number {
    return this.setCount;
  }

  /** Share of bits set (0–1); about 0.5 when the filter holds the n it was sized for. */
  get fillRatio(): number {
    return this.setCount / this.m;
  }

  /** Adds a key; returns true when at least one bit was new. */
  add(key: string): boolean {
    hash2(key);
    const { m, k, bits } = this;
    let x = HASH_OUT[0]! % m;
    let y = HASH_OUT[1]! % m;
    let changed = false;
    for (let i = 0; i < k; i++) {
      const byte = x >>> 3;
      const mask = 0x80 >>> (x & 7);
      if ((bits[byte]! & mask) === 0) {
        bits[byte] = bits[byte]! | mask;
        this.setCount++;
        changed = true;
      }
      x += y;
      if (x >= m) x -= m;
      y += i + 1;
      if (y >= m) y %= m;
    }
    return changed;
  }

  /** False = definitely never added; true = maybe added. */
  has(key: string): boolean {
    hash2(key);
    const { m, k, bits } = this;
    let x = HASH_OUT[0]! % m;
    let y = HASH_OUT[1]! % m;
    for (let i = 0; i < k; i++) {
      if ((bits[x >>> 3]! & (0x80 >>> (x & 7))) === 0) return false;
      x += y;
      if (x >= m) x -= m;
      y += i + 1;
      if (y >= m) y %= m;
    }
    return true;
  }

  /** The k bit positions of a key (what `add` sets), e.g. for Redis SETBIT. */
  positions(key: string, out: number[] = []): number[] {
    hash2(key);
    const { m, k } = this;
    let x = HASH_OUT[0]! % m;
    let y = HASH_OUT[1]! % m;
    for (let i = 0; i < k; i++) {
      out.push(x);
      x += y;
      if (x >= m) x -= m;
      y += i + 1;
      if (y >= m) y %= m;
    }
    return out;
  }

  /** Binary form: 16-byte header (magic, format, hash, k, m) then the bits (bloom-bytes.ts). */
  toBytes(): Buffer {
    return filterBytes(this.m, this.k, this.bits);
  }

  /** Reads the binary form; throws on another format, another hash, or a truncated array. */
  static fromBytes(buf: Uint8Array): BloomFilter {
    const { m, k, bits } = readFilterBytes(buf);
    return new BloomFilter(m, k, bits);
  }

  /** Sets this filter's bits to the union with another filter of the same shape. */
  union(other: BloomFilter): void {
    if (other.m !== this.m || other.k !== this.k)
      throw new Error('bloom: union needs filters of the same m and k');
    for (let i = 0; i < this.bits.length; i++) this.bits[i] = this.bits[i]! | other.bits[i]!;
    this.setCount = countBits(this.bits);
  }
}

function countBits(bits: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) n += POPCOUNT[bits[i]!]!;
  return n;
}
