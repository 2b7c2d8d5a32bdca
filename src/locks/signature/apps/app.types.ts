import type { KeyObject } from 'node:crypto';

/** App and key ids: 1–64 characters of `[A-Za-z0-9_.-]` (no `:`, which separates them in an RFC 9421 keyid). */
export const ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** An app's limits for session keys (APPS_FILE `sessionKeys:`); no `sessionKeys` = the app cannot use them. */
export interface AppSessionKeys {
  /** Longest life of a key, seconds (default 900 = 15 min). */
  maxTtlSeconds: number;
  /** The policies a key may name; a key's scope is a subset. */
  maxScope: string[];
  /** Keys issued at or before this time (seconds since the epoch) are revoked; 0 = none. Bumped by the admin API. */
  epoch: number;
  /**
   * Seconds after a key's expiry during which a request still signed with it is a normal refresh, not a risk
   * signal (it is refused `key_expired` all the same); default 300, 0 = none.
   */
  refreshGraceSeconds: number;
}

/** One signing secret of an app. */
export interface AppSecret {
  /** Key id (`X-Key-Id`, or the part after `:` in an RFC 9421 keyid). */
  id: string;
  /** The HMAC key: the secret string's UTF-8 bytes. A KeyObject never prints its material. */
  key: KeyObject;
  /** Epoch milliseconds after which the secret stops working; undefined = no end. */
  notAfter?: number;
}

/** An API client app as the signature lock sees it. */
export interface ClientApp {
  id: string;
  /** Quota tier for the rate limiter, e.g. `free`, `pro`. */
  tier: string;
  /** An inactive app is refused like an unknown one. */
  active: boolean;
  secrets: AppSecret[];
  /** Allowed clock difference in seconds (both ways); undefined = the service default. */
  skewSeconds?: number;
  /** When true, a `bad_signature` answer includes the server's string to sign. */
  debug: boolean;
  /** Limits of the app's session keys; undefined = the app cannot use session keys. */
  sessionKeys?: AppSessionKeys;
}

/** An app without its secret material, for listings and the admin API. */
export interface ClientAppView {
  id: string;
  tier: string;
  active: boolean;
  skewSeconds?: number;
  debug: boolean;
  secrets: { id: string; notAfter?: string; expired: boolean }[];
  sessionKeys?: { maxTtl: number; maxScope: string[]; epoch: number; refreshGrace: number };
}

/** Secrets of an app that still work at `now`. */
export function activeSecrets(app: ClientApp, now: number): AppSecret[] {
  return app.secrets.filter((s) => isActiveSecret(s, now));
}

/** Whether a secret is still active at `now` (epoch ms). */
export function isActiveSecret(s: AppSecret, now: number): boolean {
  return s.notAfter === undefined || now < s.notAfter;
}

export function viewOf(app: ClientApp, now: number): ClientAppView {
  const view: ClientAppView = {
    id: app.id,
    tier: app.tier,
    active: app.active,
    debug: app.debug,
    secrets: app.secrets.map((s) => ({
      id: s.id,
      ...(s.notAfter !== undefined ? { notAfter: new Date(s.notAfter).toISOString() } : {}),
      expired: s.notAfter !== undefined && now >= s.notAfter,
    })),
  };
  if (app.skewSeconds !== undefined) view.skewSeconds = app.skewSeconds;
  const sk = app.sessionKeys;
  if (sk)
    view.sessionKeys = {
      maxTtl: sk.maxTtlSeconds,
      maxScope: sk.maxScope,
      epoch: sk.epoch,
      refreshGrace: sk.refreshGraceSeconds,
    };
  return view;
}
