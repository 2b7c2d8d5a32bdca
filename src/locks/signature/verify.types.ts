import type { IncomingHttpHeaders } from 'node:http';
import type { ClientApp } from './apps/app.types.js';
import type { SignatureScheme } from './signature.types.js';
import type { SessionKeyClaims } from './session-keys/session-key-id.js';

/** Nonces of either scheme: 16–64 characters of `[A-Za-z0-9_-]`. */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** What the verifiers read from a request (adapter-neutral, testable without HTTP). */
export interface SignedRequestView {
  method: string;
  /** The request target exactly as on the wire: path and optional `?query`. */
  target: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes (empty when none). */
  body: Buffer;
  /** Scheme of the connection to this server, for RFC 9421 `@scheme` / `@target-uri`. */
  scheme: 'http' | 'https';
}

/** Looks apps up by id (the AppRegistry, or a plain map in tests). */
export interface AppLookup {
  get(id: string): ClientApp | undefined;
}

export interface VerifyOptions {
  /** Current time, epoch milliseconds. */
  now: number;
  /** Allowed clock difference (seconds) for apps without their own `skewSeconds`. */
  defaultSkewSeconds: number;
}

/** A request whose MAC matched: what is left is claiming its nonce. */
export interface Verified {
  ok: true;
  scheme: SignatureScheme;
  app: ClientApp;
  /** Id of the secret that matched. */
  keyId: string;
  nonce: string;
  /** Set when a session key signed the request: its id and what the id says (user, scope, expiry). */
  session?: { id: string; claims: SessionKeyClaims };
  /** How long the nonce must be remembered: the whole window in which the request could be accepted (≥ 2 × skew). */
  nonceTtlMs: number;
}

export function skewSecondsOf(app: ClientApp | undefined, opts: VerifyOptions): number {
  return app?.skewSeconds ?? opts.defaultSkewSeconds;
}

/** Nonce TTL: a timestamp accepted at `now` can be accepted again until `timestamp + skew ≤ now + 2 × skew`; one second of margin for RFC 9421's whole-second `created`. */
export function nonceTtlMs(skewSeconds: number): number {
  return (2 * skewSeconds + 1) * 1000;
}
