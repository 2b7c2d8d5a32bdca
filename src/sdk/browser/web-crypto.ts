/**
 * Browser SDK building blocks: the Rampart-HMAC canonical string and RFC 9421
 * pieces on WebCrypto and TextEncoder only (no Node, no dependency). Kept
 * byte-identical to the server's code by shared vectors
 * (src/sdk/browser/browser-sdk.spec.ts); the canonical path-and-query is the
 * server's own (src/common/canonical-target.ts, pure text).
 */
export { canonicalTarget } from '../../common/canonical-target.js';

export type BodyInit = string | Uint8Array | ArrayBuffer | undefined;

const enc = new TextEncoder();

export function bytesOf(body: BodyInit): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  if (typeof body === 'string') return enc.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function base64(bytes: ArrayBuffer | Uint8Array): string {
  let s = '';
  for (const b of bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    s += String.fromCharCode(b);
  return btoa(s);
}

export async function sha256(body: BodyInit): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', bytesOf(body));
}

export async function sha256Hex(body: BodyInit): Promise<string> {
  return hex(await sha256(body));
}

/** HMAC-SHA256 with the secret's UTF-8 bytes as key (like the server). */
export async function hmacSha256(secret: string, data: string): Promise<ArrayBuffer> {
  const key = await crypto.subtle.importKey(
    'raw',
    enc.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return crypto.subtle.sign('HMAC', key, enc.encode(data));
}

export async function hmacHex(secret: string, data: string): Promise<string> {
  return hex(await hmacSha256(secret, data));
}

/** An RFC 8941 string: quoted, `\` and `"` escaped. */
export function sfString(v: string): string {
  return `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
