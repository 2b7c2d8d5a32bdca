import { createHash, timingSafeEqual } from 'node:crypto';
import { parseDictionary } from './structured-fields.js';
import { SfBytes, SfParseError, isInnerList } from './structured-fields.types.js';

const ALGORITHMS = { 'sha-256': 'sha256', 'sha-512': 'sha512' } as const;
type DigestAlgorithm = keyof typeof ALGORITHMS;

/** The RFC 9530 Content-Digest value of a body: `sha-256=:<base64>:`. */
export function contentDigest(
  body: Uint8Array | string,
  algorithm: DigestAlgorithm = 'sha-256',
): string {
  return `${algorithm}=:${createHash(ALGORITHMS[algorithm]).update(body).digest('base64')}:`;
}

/**
 * Checks a Content-Digest field against the raw body. Every supported
 * algorithm present (sha-256, sha-512) must match; others are ignored, and at
 * least one supported algorithm must be present.
 */
export function checkContentDigest(
  field: string,
  body: Uint8Array,
): 'match' | 'mismatch' | 'malformed' {
  let dict;
  try {
    dict = parseDictionary(field);
  } catch (e) {
    if (e instanceof SfParseError) return 'malformed';
    throw e;
  }
  let checked = 0;
  for (const [name, member] of dict) {
    if (!(name in ALGORITHMS)) continue;
    if (isInnerList(member) || !(member.value instanceof SfBytes)) return 'malformed';
    const expected = createHash(ALGORITHMS[name as DigestAlgorithm])
      .update(body)
      .digest();
    const given = member.value.bytes;
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'mismatch';
    checked++;
  }
  return checked > 0 ? 'match' : 'malformed';
}
