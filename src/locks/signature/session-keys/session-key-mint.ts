import { randomBytes, type KeyObject } from 'node:crypto';
import type { ClientApp } from '../apps/app.types.js';
import { activeSecrets } from '../apps/app.types.js';
import { parseTtl } from './app-session-keys.js';
import { POLICY_NAME, formatSessionKeyId, userProblem } from './session-key-id.js';
import { sessionKeySecret } from './session-key-secret.js';

/** A minted session key: what the app's server hands to its browser. */
export interface SessionKey {
  appId: string;
  /** Goes in X-Key-Id (Rampart-HMAC) or after `<appId>:` in the RFC 9421 keyid. */
  keyId: string;
  /** Signs the requests (its UTF-8 bytes are the HMAC key), like an app secret. */
  secret: string;
  user: string;
  scope: string[];
  /** Seconds since the epoch. */
  issuedAt: number;
  /** Seconds since the epoch. */
  expiresAt: number;
}

export interface SessionKeyInputs {
  appId: string;
  user: string;
  ttlSeconds: number;
  scope: string[];
  /** Epoch milliseconds. */
  now: number;
  /** 16–32 characters of base64url; default 16 random bytes. */
  random?: string;
}

/** Builds the key id and derives its secret from the app secret (the SDK's and the server's one implementation). */
export function createSessionKey(
  appSecret: string | Uint8Array | KeyObject,
  i: SessionKeyInputs,
): SessionKey {
  const issuedAt = Math.floor(i.now / 1000);
  const claims = {
    appId: i.appId,
    user: i.user,
    issuedAt,
    expiresAt: issuedAt + i.ttlSeconds,
    scope: i.scope,
    random: i.random ?? randomBytes(16).toString('base64url'),
  };
  const keyId = formatSessionKeyId(claims);
  return { ...claims, keyId, secret: sessionKeySecret(appSecret, keyId) };
}

/**
 * Mints a key for `app` from a request body `{user, ttl?, scope?}` within
 * the app's limits (ttl default = maxTtl, scope default = maxScope), with
 * the app's newest active secret. Problems name the field.
 */
export function mintSessionKey(
  app: ClientApp,
  body: unknown,
  now: number,
): { key: SessionKey } | { problems: string[] } {
  const limits = app.sessionKeys;
  if (!limits) return { problems: [`app "${app.id}" has no sessionKeys settings in APPS_FILE`] };
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(b))
    if (!['user', 'ttl', 'scope'].includes(k))
      problems.push(`${k}: unknown field (user, ttl, scope)`);
  const up = userProblem(b.user);
  if (up) problems.push(`user: ${up}`);
  const ttl = b.ttl === undefined ? limits.maxTtlSeconds : parseTtl(b.ttl);
  if (ttl === undefined) problems.push("ttl: must be a duration such as 300, '90s', '15m'");
  else if (ttl > limits.maxTtlSeconds)
    problems.push(`ttl: at most ${limits.maxTtlSeconds} s (the app's maxTtl)`);
  const scope = b.scope === undefined ? limits.maxScope : b.scope;
  if (
    !Array.isArray(scope) ||
    scope.length === 0 ||
    !scope.every((p) => typeof p === 'string' && POLICY_NAME.test(p))
  )
    problems.push('scope: must be a non-empty list of policy names');
  else {
    const outside = scope.filter((p) => !limits.maxScope.includes(p as string));
    if (outside.length > 0)
      problems.push(
        `scope: ${outside.join(', ')} not in the app's maxScope (${limits.maxScope.join(', ')})`,
      );
  }
  const secrets = activeSecrets(app, now);
  if (secrets.length === 0) problems.push(`app "${app.id}" has no active secret`);
  if (problems.length > 0) return { problems };
  const key = createSessionKey(secrets[secrets.length - 1]!.key, {
    appId: app.id,
    user: b.user as string,
    ttlSeconds: ttl!,
    scope: [...new Set(scope as string[])],
    now,
  });
  return { key };
}
