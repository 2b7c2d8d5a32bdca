import { KeyObject, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './canonical.js';
import type { ClientApp } from './app.types.js';
import { activeSecrets } from './app.types.js';
import { MAX_ACTIVE_SECRETS } from './app-definition.js';

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
 * `now`: the one named by `keyId`, or every active one. Always computes and
 * compares exactly MAX_ACTIVE_SECRETS MACs in constant time (the missing ones
 * against the dummy key, no early exit), so timing tells neither whether the
 * app exists nor how many secrets it has. Returns the id of the matching
 * secret, or undefined.
 */
export function matchSecret(app: ClientApp | undefined, keyId: string | undefined, data: string, given: Buffer, now: number): string | undefined {
  let candidates = app ? activeSecrets(app, now) : [];
  if (keyId !== undefined) candidates = candidates.filter((s) => s.id === keyId);
  let matched: string | undefined;
  for (let i = 0; i < MAX_ACTIVE_SECRETS; i++) {
    const s = candidates[i];
    const equal = macEquals(hmacSha256(s?.key ?? DUMMY_KEY, data), given);
    if (equal && s !== undefined && matched === undefined) matched = s.id;
  }
  return matched;
}
