/**
 * Browser SDK building blocks: the Rampart-HMAC canonical string and RFC 9421
 * pieces on WebCrypto and TextEncoder only (no Node, no dependency). Kept
 * byte-identical to the server's code by shared vectors
 * (src/sdk/browser/browser-sdk.spec.ts).
 */
export type BodyInit = string | Uint8Array | ArrayBuffer | undefined;

const enc = new TextEncoder();
const HEX = '0123456789ABCDEF';

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

function isUnreserved(b: number): boolean {
  return (
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x30 && b <= 0x39) ||
    b === 0x2d ||
    b === 0x2e ||
    b === 0x5f ||
    b === 0x7e
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Percent-decodes, then re-encodes per RFC 3986 (unreserved kept, the rest `%XX`; `+` stays a plus). */
export function rfc3986Reencode(raw: string): string {
  const bytes = enc.encode(raw);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    let b = bytes[i]!;
    if (b === 0x25 && i + 2 < bytes.length) {
      const hi = hexValue(bytes[i + 1]!);
      const lo = hexValue(bytes[i + 2]!);
      if (hi >= 0 && lo >= 0) {
        b = hi * 16 + lo;
        i += 2;
      }
    }
    out += isUnreserved(b) ? String.fromCharCode(b) : '%' + HEX[b >> 4]! + HEX[b & 15]!;
  }
  return out;
}

/** The canonical path-and-query: the path as sent, the query split, re-encoded and sorted. */
export function canonicalTarget(target: string): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const pairs: [string, string][] = [];
  for (const piece of target.slice(q + 1).split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    pairs.push([
      rfc3986Reencode(eq < 0 ? piece : piece.slice(0, eq)),
      rfc3986Reencode(eq < 0 ? '' : piece.slice(eq + 1)),
    ]);
  }
  pairs.sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0,
  );
  const query = pairs.map(([n, v]) => `${n}=${v}`).join('&');
  return query === '' ? target.slice(0, q) : `${target.slice(0, q)}?${query}`;
}

/** An RFC 8941 string: quoted, `\` and `"` escaped. */
export function sfString(v: string): string {
  return `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
