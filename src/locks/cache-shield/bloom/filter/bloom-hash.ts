/**
 * The hash of the cache shield's Bloom filters: two murmur3-style 32-bit
 * lanes with different seeds, computed in one pass over the UTF-16 code
 * units of the key (two units per 32-bit block). The pair feeds enhanced
 * double hashing in BloomFilter.
 *
 * Filters are only ever built and read by this code, so hashing UTF-16 is
 * safe; a filter records {@link BLOOM_HASH} and is refused by a reader with
 * another hash. Change the function ⇒ bump the id (stored filters rebuild).
 */

/** Id of the hash function, stored with every filter. */
export const BLOOM_HASH = 'm3x2-u16-v1';

/** Numeric code of {@link BLOOM_HASH} in the binary format. */
export const BLOOM_HASH_CODE = 1;

/** Output of {@link hash2}: [lane a, lane b] as unsigned 32-bit integers. Reused to avoid allocations. */
export const HASH_OUT = new Uint32Array(2);

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function fmix(h: number, len: number): number {
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Hashes `key` into {@link HASH_OUT}. */
export function hash2(key: string): void {
  let a = 0x9747b28c | 0;
  let b = 0x2f1b6a5d | 0;
  const len = key.length;
  const even = len & ~1;
  let i = 0;
  for (; i < even; i += 2) {
    let c = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16);
    c = Math.imul(c, C1);
    c = Math.imul((c << 15) | (c >>> 17), C2);
    a ^= c;
    a = (a << 13) | (a >>> 19);
    a = (Math.imul(a, 5) + 0xe6546b64) | 0;
    b ^= c;
    b = (b << 13) | (b >>> 19);
    b = (Math.imul(b, 5) + 0x52dce729) | 0;
  }
  if (i < len) {
    let c = Math.imul(key.charCodeAt(i), C1);
    c = Math.imul((c << 15) | (c >>> 17), C2);
    a ^= c;
    b ^= c;
  }
  HASH_OUT[0] = fmix(a, len);
  HASH_OUT[1] = fmix(b ^ 0x5bd1e995, len);
}
