import type { BodyInit } from './web-crypto.js';
import { signRequest } from './sign.js';

/** A session key as the app's server hands it out (POST /v1/session-keys answer, or deriveSessionKey). */
export interface BrowserSessionKey {
  appId: string;
  keyId: string;
  secret: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

export interface SessionFetchOptions {
  /** The app's own URL that answers a fresh session key for the signed-in user (JSON). */
  keyUrl: string;
  /** Options of the key request (default `{ method: 'POST', credentials: 'include' }`). */
  keyRequest?: RequestInit;
  /** Get a new key this long before the current one expires (ms, default 30 000). */
  refreshBeforeMs?: number;
  format?: 'hmac' | 'rfc9421';
  fetch?: typeof fetch;
  /** Called with every new key (e.g. to show its expiry). */
  onKey?: (key: BrowserSessionKey) => void;
}

/** `fetch` that signs every request with a session key, refreshed from `keyUrl`. */
export interface SessionFetch {
  (url: string | URL, init?: RequestInit & { body?: BodyInit }): Promise<Response>;
  /** The key in use (fetched if needed). */
  key(): Promise<BrowserSessionKey>;
  /** Drops the key: the next call fetches a new one. */
  reset(): void;
}

const RETRY_CODES = new Set(['key_expired', 'key_revoked']);

/**
 * A fetch wrapper for browsers: gets a session key from the app's `keyUrl`,
 * signs each request with it, and gets a new key shortly before expiry — or
 * once, and retries, when Rampart answers `key_expired` / `key_revoked`.
 * Bodies must be strings or bytes (what is signed is what is sent).
 */
export function createSessionFetch(o: SessionFetchOptions): SessionFetch {
  const doFetch = o.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const before = o.refreshBeforeMs ?? 30_000;
  let current: Promise<BrowserSessionKey> | undefined;

  const load = async (): Promise<BrowserSessionKey> => {
    const res = await doFetch(o.keyUrl, o.keyRequest ?? { method: 'POST', credentials: 'include' });
    if (!res.ok) throw new Error(`session key request failed: HTTP ${res.status}`);
    const key = (await res.json()) as BrowserSessionKey;
    o.onKey?.(key);
    return key;
  };
  const key = async (): Promise<BrowserSessionKey> => {
    const k = current ? await current.catch(() => undefined) : undefined;
    if (k && k.expiresAt * 1000 - before > Date.now()) return k;
    current = load();
    return current;
  };
  const send = async (url: string | URL, init: RequestInit & { body?: BodyInit }) => {
    const k = await key();
    const method = init.method ?? 'GET';
    const signed = await signRequest({ ...k, method, url, body: init.body, format: o.format });
    const headers = new Headers(init.headers);
    for (const [n, v] of Object.entries(signed)) headers.set(n, v);
    return doFetch(url, { ...init, method, headers });
  };
  const sessionFetch = (async (url, init = {}) => {
    const res = await send(url, init);
    if (res.status !== 401) return res;
    if (!RETRY_CODES.has(await errorCode(res))) return res;
    current = undefined;
    return send(url, init);
  }) as SessionFetch;
  sessionFetch.key = key;
  sessionFetch.reset = () => {
    current = undefined;
  };
  return sessionFetch;
}

/** Rampart's error code: problem+json `error`, or `error.code` on OpenAI-style routes (inference). */
export async function errorCode(res: Response): Promise<string> {
  const body = (await res
    .clone()
    .json()
    .catch(() => ({}))) as { error?: string | { code?: string } };
  return (typeof body.error === 'object' ? body.error?.code : body.error) ?? '';
}
