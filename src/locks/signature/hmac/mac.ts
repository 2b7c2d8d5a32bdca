import { KeyObject, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './canonical.js';
import type { ClientApp } from '../apps/app.types.js';
import { activeSecrets } from '../apps/app.types.js';
import { MAX_ACTIVE_SECRETS } from '../apps/app-definition.js';

/**
 * A random key generated at boot: the MAC of a request for an unknown app or
 * key is computed against it, so the answer takes as long as for a real one
 * and timing does not reveal which apps exist.
 */
export const DUMMY_KEY: KeyObject = createSecretKey(randomBytes(32));

/** Constant-time equality of two MACs; false (not a throw) when the lengths differ. */
export function macEquals(expected: Buffer, given: Buffer): boolean {
  if (expected.length !== given.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, given);
}

/**
 * Checks a MAC over `data` against the app's secrets that are active at
 * `now`: the one named by `keyId`, or every active one. Every candidate is
 * computed and compared in constant time (no early exit); with no candidate
 * (unknown app or key) one MAC is computed against the dummy key, so an
 * unknown app costs what a known one with one secret costs. (Without X-Key-Id
 * an app with N active secrets costs N MACs — cheaper than padding every
 * request to MAX_ACTIVE_SECRETS; clients in rotation send X-Key-Id.)
 * Returns the id of the matching secret, or undefined.
 */
export function matchSecret(
  app: ClientApp | undefined,
  keyId: string | undefined,
  data: string,
  given: Buffer,
  now: number,
): string | undefined {
  let candidates = app ? activeSecrets(app, now) : [];
  if (keyId !== undefined) candidates = candidates.filter((s) => s.id === keyId);
  if (candidates.length === 0) {
    macEquals(hmacSha256(DUMMY_KEY, data), given);
    return undefined;
  }
  let matched: string | undefined;
  for (const s of candidates.slice(0, MAX_ACTIVE_SECRETS)) {
    if (macEquals(hmacSha256(s.key, data), given) && matched === undefined) matched = s.id;
  }
  return matched;
}
