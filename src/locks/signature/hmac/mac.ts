import { KeyObject, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './canonical.js';
import type { ClientApp } from '../apps/app.types.js';
import { isActiveSecret } from '../apps/app.types.js';
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
  // One pass over the app's secrets (no filtered copies per request): the candidates are its
  // active secrets, those named by `keyId` when it is given, the first MAX_ACTIVE_SECRETS of them.
  let matched: string | undefined;
  let tried = 0;
  if (app) {
    for (const s of app.secrets) {
      if (tried === MAX_ACTIVE_SECRETS) break;
      if (!isActiveSecret(s, now) || (keyId !== undefined && s.id !== keyId)) continue;
      tried++;
      if (macEquals(hmacSha256(s.key, data), given) && matched === undefined) matched = s.id;
    }
  }
  if (tried === 0) macEquals(hmacSha256(DUMMY_KEY, data), given);
  return matched;
}
