/**
 * The Rampart-HMAC-SHA256 wire format: THE one implementation of the
 * canonical string, shared by the server (signature lock) and the client
 * SDK / CLI. Pure functions on node:crypto only — no Nest, no I/O.
 */
import { createHash, createHmac, type KeyObject } from 'node:crypto';

/** Request headers of the scheme (lower case, as Node delivers them). */
export const SIGNATURE_HEADERS = {
  appId: 'x-app-id',
  timestamp: 'x-timestamp',
  nonce: 'x-nonce',
  signature: 'x-signature',
  keyId: 'x-key-id',
} as const;

/** Lower-case hex SHA-256 of the empty string: the body hash of a request without a body. */
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** What is signed, field by field. */
export interface SignatureInputs {
  appId: string;
  /** Milliseconds since the Unix epoch, as sent in X-Timestamp. */
  timestamp: string;
  nonce: string;
  method: string;
  /** The request target as it goes on the wire: path and optional `?query`, not decoded. */
  target: string;
  /** The raw body bytes (empty when there is none). */
  body?: Uint8Array | string;
}

/** Lower-case hex SHA-256 of the body bytes. */
export function bodySha256Hex(body: Uint8Array | string | undefined): string {
  if (body === undefined || body.length === 0) return EMPTY_BODY_SHA256;
  return createHash('sha256').update(body).digest('hex');
}

const HEX = '0123456789ABCDEF';

/** RFC 3986 unreserved characters: A-Z a-z 0-9 - . _ ~ */
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

/**
 * Percent-decodes to bytes, then re-encodes per RFC 3986: unreserved kept,
 * every other byte `%XX` upper case. `+` is a literal plus (`%2B`), never a
 * space; a `%` not followed by two hex digits is a literal `%` (`%25`).
 */
export function rfc3986Reencode(raw: string): string {
  const bytes = Buffer.from(raw, 'utf8');
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

/**
 * Canonical query: split on `&` (empty pieces dropped) and the first `=`,
 * names and values re-encoded per RFC 3986, sorted by encoded name then
 * encoded value (duplicates kept), `k=` for an empty or missing value,
 * joined with `&`. Empty string when there is no parameter.
 */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return '';
  const pairs: [string, string][] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = eq < 0 ? piece : piece.slice(0, eq);
    const value = eq < 0 ? '' : piece.slice(eq + 1);
    pairs.push([rfc3986Reencode(name), rfc3986Reencode(value)]);
  }
  pairs.sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0,
  );
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

/**
 * Canonical path-and-query: the path exactly as sent (not decoded, not
 * normalised), then `?` and the canonical query only when there is one.
 */
export function canonicalTarget(target: string): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const query = canonicalQuery(target.slice(q + 1));
  return query === '' ? target.slice(0, q) : `${target.slice(0, q)}?${query}`;
}

/**
 * The string to sign: app id, timestamp, nonce, upper-case method, canonical
 * path-and-query and the hex SHA-256 of the raw body, joined by `\n`, no
 * trailing newline.
 */
export function stringToSign(i: SignatureInputs): string {
  return [
    i.appId,
    i.timestamp,
    i.nonce,
    i.method.toUpperCase(),
    canonicalTarget(i.target),
    bodySha256Hex(i.body),
  ].join('\n');
}

/** HMAC-SHA256 of the string to sign (raw 32 bytes). The key is the secret's UTF-8 bytes. */
export function hmacSha256(secret: string | Uint8Array | KeyObject, data: string): Buffer {
  return createHmac('sha256', secret).update(data, 'utf8').digest();
}

/** The X-Signature value: lower-case hex HMAC-SHA256 of the string to sign. */
export function signatureHex(
  secret: string | Uint8Array | KeyObject,
  inputs: SignatureInputs,
): string {
  return hmacSha256(secret, stringToSign(inputs)).toString('hex');
}
