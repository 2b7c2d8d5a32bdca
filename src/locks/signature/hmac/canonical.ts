/**
 * The Rampart-HMAC-SHA256 wire format: THE one implementation of the
 * canonical string, shared by the server (signature lock) and the client
 * SDK / CLI. Pure functions on node:crypto only — no Nest, no I/O.
 */
import { createHash, createHmac, type KeyObject } from 'node:crypto';
import { canonicalTarget } from '../../../common/canonical-target.js';

export {
  canonicalQuery,
  canonicalTarget,
  rfc3986Reencode,
} from '../../../common/canonical-target.js';

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

/**
 * The string to sign: app id, timestamp, nonce, upper-case method, canonical
 * path-and-query and the hex SHA-256 of the raw body, joined by `\n`, no
 * trailing newline.
 */
export function stringToSign(i: SignatureInputs): string {
  // Concatenated, not an array joined: one string built per request, no array.
  return (
    i.appId +
    '\n' +
    i.timestamp +
    '\n' +
    i.nonce +
    '\n' +
    i.method.toUpperCase() +
    '\n' +
    canonicalTarget(i.target) +
    '\n' +
    bodySha256Hex(i.body)
  );
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
