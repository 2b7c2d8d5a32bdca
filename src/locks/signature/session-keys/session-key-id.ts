/**
 * Session key ids: `sk1.<appId>.<base64url(user)>.<issued s>.<expires s>.<scope>.<random>`.
 * Everything Rampart needs to verify a key is in its id (no storage); the
 * key's secret is derived from the id (session-key-secret.ts). Pure, no I/O.
 */
import { ID_PATTERN } from '../apps/app.types.js';

export const SESSION_KEY_PREFIX = 'sk1';
/** Longest user id, in UTF-8 bytes. */
export const MAX_USER_BYTES = 128;
/** Most policies one key may name. */
export const MAX_SCOPE_POLICIES = 16;
/** Policy names, as CONFIG_FILE allows them. */
export const POLICY_NAME = /^[a-z][a-z0-9-]{0,63}$/;

/** What a session key id says about the key. */
export interface SessionKeyClaims {
  appId: string;
  /** The end user the key was minted for (verified: it becomes the rate limiter's `user`). */
  user: string;
  /** Issue time, seconds since the epoch. */
  issuedAt: number;
  /** Expiry, seconds since the epoch. */
  expiresAt: number;
  /** The route policies the key may call. */
  scope: string[];
  /** 16–32 characters of base64url. */
  random: string;
}

const B64U = /^[A-Za-z0-9_-]+$/;
const SECONDS = /^[1-9][0-9]{9}$/;
const RANDOM = /^[A-Za-z0-9_-]{16,32}$/;

/** The characters a session key id is made of (X-Key-Id, the part after `:` of an RFC 9421 keyid). */
export const SESSION_KEY_ID_FORM = /^sk1\.[A-Za-z0-9_.+-]{1,508}$/;

/** An app secret's id, or a session key id (its content is checked when verifying). */
export function isKeyIdForm(keyId: string): boolean {
  return ID_PATTERN.test(keyId) || SESSION_KEY_ID_FORM.test(keyId);
}

/** True when a key id names a session key (the only ids with this prefix). */
export function isSessionKeyId(keyId: string | undefined): keyId is string {
  return keyId !== undefined && keyId.startsWith(`${SESSION_KEY_PREFIX}.`);
}

/** Problems with a user id: 1–128 UTF-8 bytes, no control characters. */
export function userProblem(user: unknown): string | undefined {
  if (typeof user !== 'string' || user.length === 0) return 'must be a non-empty string';
  if (Buffer.byteLength(user, 'utf8') > MAX_USER_BYTES)
    return `must be at most ${MAX_USER_BYTES} UTF-8 bytes`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(user)) return 'must not contain control characters';
  return undefined;
}

/** The id of a key with these claims. */
export function formatSessionKeyId(c: SessionKeyClaims): string {
  return [
    SESSION_KEY_PREFIX,
    c.appId,
    Buffer.from(c.user, 'utf8').toString('base64url'),
    String(c.issuedAt),
    String(c.expiresAt),
    c.scope.join('+'),
    c.random,
  ].join('.');
}

/**
 * Reads a session key id; undefined when it is not one, or malformed. The
 * app id may contain dots: it is everything between the prefix and the
 * last five fields (none of which can contain a dot).
 */
export function parseSessionKeyId(keyId: string): SessionKeyClaims | undefined {
  if (keyId.length > 512) return undefined;
  const parts = keyId.split('.');
  if (parts.length < 7 || parts[0] !== SESSION_KEY_PREFIX) return undefined;
  const [userB64, issued, expires, scope, random] = parts.slice(-5) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const appId = parts.slice(1, -5).join('.');
  if (!ID_PATTERN.test(appId) || !B64U.test(userB64) || !RANDOM.test(random)) return undefined;
  if (!SECONDS.test(issued) || !SECONDS.test(expires)) return undefined;
  const policies = scope.split('+');
  if (policies.length > MAX_SCOPE_POLICIES || !policies.every((p) => POLICY_NAME.test(p)))
    return undefined;
  const user = Buffer.from(userB64, 'base64url').toString('utf8');
  // Only the canonical encoding of a valid user: one user has one id form.
  if (userProblem(user) || Buffer.from(user, 'utf8').toString('base64url') !== userB64)
    return undefined;
  const issuedAt = Number(issued);
  const expiresAt = Number(expires);
  if (expiresAt <= issuedAt) return undefined;
  return { appId, user, issuedAt, expiresAt, scope: policies, random };
}
