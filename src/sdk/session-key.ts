import { parseTtl } from '../locks/signature/session-keys/app-session-keys.js';
import { userProblem } from '../locks/signature/session-keys/session-key-id.js';
import {
  type SessionKey,
  createSessionKey,
} from '../locks/signature/session-keys/session-key-mint.js';
import type { SigningCredentials } from './sign-request.js';

export type { SessionKey };

export interface DeriveSessionKeyOptions {
  appId: string;
  /** The signed-in end user (1–128 UTF-8 bytes): Rampart rate limits per this user. */
  user: string;
  /** The policies the key may call, e.g. `['search', 'inference']` (within the app's maxScope). */
  scope: string[];
  /** Seconds or a duration (`'90s'`, `'10m'`); default 900 (15 min). */
  ttl?: number | string;
  /** Refuse a longer ttl here (default 900 s, the server's default maxTtl); match the app's maxTtl. */
  maxTtl?: number | string;
  /** Epoch milliseconds; default now. */
  now?: number;
}

/**
 * Mints a session key offline, on the app's server, from the app's
 * long-lived secret: the same derivation Rampart verifies
 * (secret = base64url(HMAC-SHA256(appSecret, keyId))). Hand `{appId, keyId,
 * secret, expiresAt}` to the browser; never the app secret.
 */
export function deriveSessionKey(appSecret: string, o: DeriveSessionKeyOptions): SessionKey {
  const ttl = parseTtl(o.ttl ?? 900);
  const max = parseTtl(o.maxTtl ?? 900);
  if (ttl === undefined || max === undefined) throw new Error('ttl / maxTtl must be durations');
  if (ttl > max) throw new Error(`ttl ${ttl} s is over the maximum (${max} s)`);
  const up = userProblem(o.user);
  if (up) throw new Error(`user ${up}`);
  if (o.scope.length === 0) throw new Error('scope must name at least one policy');
  return createSessionKey(appSecret, {
    appId: o.appId,
    user: o.user,
    ttlSeconds: ttl,
    scope: o.scope,
    now: o.now ?? Date.now(),
  });
}

/** The credentials that sign with a session key (signRequest, createSignedFetch, signRequestRfc9421). */
export function sessionKeyCredentials(
  key: Pick<SessionKey, 'appId' | 'keyId' | 'secret'>,
): SigningCredentials {
  return { appId: key.appId, secret: key.secret, keyId: key.keyId };
}
