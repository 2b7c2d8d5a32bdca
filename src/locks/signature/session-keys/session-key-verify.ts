import type { ClientApp } from '../apps/app.types.js';
import { activeSecrets } from '../apps/app.types.js';
import { MAX_ACTIVE_SECRETS } from '../apps/app-definition.js';
import { hmacSha256 } from '../hmac/canonical.js';
import { DUMMY_KEY, macEquals, matchSecret } from '../hmac/mac.js';
import { SignatureFailure, fail } from '../signature.problems.js';
import type { SignatureScheme } from '../signature.types.js';
import { type Verified, nonceTtlMs } from '../verify.types.js';
import { SessionKeyClaims, isSessionKeyId, parseSessionKeyId } from './session-key-id.js';
import { sessionKeySecret } from './session-key-secret.js';

/** The key that signed a request: an app secret, or a session key derived from one. */
export interface MatchedKey {
  /** Id of the app secret (directly, or the one the session key derives from). */
  keyId: string;
  session?: { id: string; claims: SessionKeyClaims };
}

/**
 * Checks a MAC over `data` with the key the request names: a session key
 * (`sk1.…`: its secret is derived from each active app secret, no storage),
 * else an app secret (matchSecret). Every candidate is computed, compared
 * in constant time. undefined = no match (bad signature, or a malformed
 * session key id, which costs one MAC against the dummy key).
 */
export function matchKey(
  app: ClientApp | undefined,
  keyId: string | undefined,
  data: string,
  given: Buffer,
  now: number,
): MatchedKey | undefined {
  if (!isSessionKeyId(keyId)) {
    const id = matchSecret(app, keyId, data, given, now);
    return id === undefined ? undefined : { keyId: id };
  }
  const claims = parseSessionKeyId(keyId);
  const candidates = app && claims?.appId === app.id ? activeSecrets(app, now) : [];
  if (candidates.length === 0) {
    macEquals(hmacSha256(DUMMY_KEY, data), given);
    return undefined;
  }
  let matched: string | undefined;
  for (const s of candidates.slice(0, MAX_ACTIVE_SECRETS)) {
    const secret = sessionKeySecret(s.key, keyId);
    if (macEquals(hmacSha256(secret, data), given) && matched === undefined) matched = s.id;
  }
  return matched === undefined
    ? undefined
    : { keyId: matched, session: { id: keyId, claims: claims! } };
}

/**
 * The checks of an authentic session key that need no state: still the
 * app's kind of key, not expired, not issued in the future, no longer than
 * the app's maxTtl, not revoked by the app's epoch, scope within maxScope.
 * (The policy scope and the deny set are checked by the lock.)
 */
export function sessionKeyProblem(
  app: ClientApp,
  c: SessionKeyClaims,
  now: number,
  skewSeconds: number,
  scheme: SignatureScheme,
): SignatureFailure | undefined {
  const limits = app.sessionKeys;
  const extra = { appId: app.id };
  if (!limits) return fail('key_out_of_scope', scheme, 'this app has no session keys', extra);
  if (c.issuedAt <= limits.epoch)
    return fail(
      'key_revoked',
      scheme,
      "the app's session keys issued until now were revoked; get a new key",
      extra,
    );
  if (now >= c.expiresAt * 1000)
    return fail('key_expired', scheme, 'the session key has expired; get a new key', {
      ...extra,
      serverTime: now,
      // Just expired: the client is refreshing its key as it should (docs/quotas.md#signals).
      ...(now < (c.expiresAt + limits.refreshGraceSeconds) * 1000 ? { benign: true } : {}),
    });
  if (c.issuedAt * 1000 > now + skewSeconds * 1000)
    return fail('key_expired', scheme, 'the session key is issued in the future', {
      ...extra,
      serverTime: now,
    });
  if (c.expiresAt - c.issuedAt > limits.maxTtlSeconds)
    return fail(
      'key_expired',
      scheme,
      `the session key lives longer than the app's maxTtl (${limits.maxTtlSeconds} s)`,
      extra,
    );
  const outside = c.scope.filter((p) => !limits.maxScope.includes(p));
  if (outside.length > 0)
    return fail(
      'key_out_of_scope',
      scheme,
      `the session key names policies outside the app's maxScope: ${outside.join(', ')}`,
      extra,
    );
  return undefined;
}

/** The success of a verifier, or the session key's problem when a session key signed it. */
export function accepted(
  app: ClientApp,
  matched: MatchedKey,
  nonce: string,
  skewSeconds: number,
  now: number,
  scheme: SignatureScheme,
): Verified | SignatureFailure {
  if (matched.session) {
    const problem = sessionKeyProblem(app, matched.session.claims, now, skewSeconds, scheme);
    if (problem) return problem;
  }
  return {
    ok: true,
    scheme,
    app,
    keyId: matched.keyId,
    nonce,
    nonceTtlMs: nonceTtlMs(skewSeconds),
    ...(matched.session ? { session: matched.session } : {}),
  };
}
