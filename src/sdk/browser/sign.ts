import {
  type BodyInit,
  base64,
  bytesOf,
  canonicalTarget,
  hmacHex,
  hmacSha256,
  sfString,
  sha256,
  sha256Hex,
} from './web-crypto.js';

/** Who signs: an app id and a secret — in a browser, a session key's id and secret. */
export interface BrowserCredentials {
  appId: string;
  secret: string;
  /** The session key id (X-Key-Id / RFC 9421 keyid `<appId>:<keyId>`). */
  keyId?: string;
}

export interface BrowserSignOptions extends BrowserCredentials {
  method: string;
  /** Absolute URL, or relative to `location.href`. */
  url: string | URL;
  /** The body exactly as it will be sent. */
  body?: BodyInit;
  /** `hmac` (Rampart-HMAC-SHA256, default) or `rfc9421`. */
  format?: 'hmac' | 'rfc9421';
  /** Milliseconds since the epoch; default now. */
  timestamp?: number;
  /** 16–64 characters of [A-Za-z0-9_-]; default 16 random bytes, base64url. */
  nonce?: string;
}

function randomNonce(): string {
  return base64(crypto.getRandomValues(new Uint8Array(16)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The request target the browser puts on the wire: path and query of the resolved URL. */
export function wireTarget(url: string | URL): string {
  const loc = (globalThis as { location?: { href: string } }).location;
  const base = loc?.href ?? 'http://rampart.invalid';
  const u = typeof url === 'string' ? new URL(url, base) : url;
  return u.pathname + u.search;
}

/**
 * Signs one request and resolves to the headers to add (lower case). Sign
 * right before sending: every request needs a fresh nonce and a timestamp
 * within the server's skew.
 */
export async function signRequest(o: BrowserSignOptions): Promise<Record<string, string>> {
  const target = wireTarget(o.url);
  const timestamp = o.timestamp ?? Date.now();
  const nonce = o.nonce ?? randomNonce();
  if (o.format === 'rfc9421') return signRfc9421(o, target, timestamp, nonce);
  const sts = [
    o.appId,
    String(timestamp),
    nonce,
    o.method.toUpperCase(),
    canonicalTarget(target),
    await sha256Hex(o.body),
  ].join('\n');
  const headers: Record<string, string> = {
    'x-app-id': o.appId,
    'x-timestamp': String(timestamp),
    'x-nonce': nonce,
    'x-signature': await hmacHex(o.secret, sts),
  };
  if (o.keyId !== undefined) headers['x-key-id'] = o.keyId;
  return headers;
}

async function signRfc9421(
  o: BrowserSignOptions,
  target: string,
  timestamp: number,
  nonce: string,
): Promise<Record<string, string>> {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const headers: Record<string, string> = {};
  const lines = [`"@method": ${o.method.toUpperCase()}`, `"@path": ${path === '' ? '/' : path}`];
  const components = ['@method', '@path'];
  if (q >= 0) {
    components.push('@query');
    lines.push(`"@query": ${target.slice(q)}`);
  }
  if (bytesOf(o.body).length > 0) {
    headers['content-digest'] = `sha-256=:${base64(await sha256(o.body))}:`;
    components.push('content-digest');
    lines.push(`"content-digest": ${headers['content-digest']}`);
  }
  const keyid = o.keyId === undefined ? o.appId : `${o.appId}:${o.keyId}`;
  const params =
    `(${components.map(sfString).join(' ')})` +
    `;created=${Math.floor(timestamp / 1000)};keyid=${sfString(keyid)};alg="hmac-sha256"` +
    `;nonce=${sfString(nonce)}`;
  lines.push(`"@signature-params": ${params}`);
  headers['signature-input'] = `sig1=${params}`;
  headers.signature = `sig1=:${base64(await hmacSha256(o.secret, lines.join('\n')))}:`;
  return headers;
}
