import { randomBytes } from 'node:crypto';
import {
  SIGNATURE_HEADERS,
  signatureHex,
  stringToSign,
} from '../locks/signature/hmac/canonical.js';

/** Who signs: an app id and one of its secrets (the secret string, used as UTF-8 bytes). */
export interface SigningCredentials {
  appId: string;
  secret: string;
  /** Optional id of the secret (sent as X-Key-Id; without it the server tries every active secret). */
  keyId?: string;
}

export interface SignRequestOptions extends SigningCredentials {
  /** HTTP method, any case. */
  method: string;
  /** Absolute URL, or a path with optional query (resolved like fetch does: `new URL(url, base)`). */
  url: string | URL;
  /** Body bytes exactly as they will be sent; strings are UTF-8. */
  body?: string | Uint8Array | ArrayBuffer;
  /** Milliseconds since the Unix epoch; default now. */
  timestamp?: number | string;
  /** 16–64 characters of [A-Za-z0-9_-]; default 22 random characters. Never reuse one. */
  nonce?: string;
}

/** The signature headers, lower case (X-App-Id, X-Timestamp, X-Nonce, X-Signature, X-Key-Id). */
export type SignatureHeaderValues = Record<string, string>;

export interface SignedRequest {
  headers: SignatureHeaderValues;
  /** The string that was signed (for `--explain` / debugging; it contains no secret). */
  stringToSign: string;
  /** The request target that goes on the wire: path and query as fetch/undici send them. */
  target: string;
}

/** The request target a client will put on the wire for `url` (dot segments resolved, characters percent-encoded like fetch). */
export function wireTarget(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url, 'http://rampart.invalid') : url;
  return u.pathname + u.search;
}

export function bodyBytes(
  body: string | Uint8Array | ArrayBuffer | undefined,
): Uint8Array | string | undefined {
  return body instanceof ArrayBuffer ? new Uint8Array(body) : body;
}

/** Signs one request; returns the headers to add plus what was signed. */
export function signRequestDetailed(o: SignRequestOptions): SignedRequest {
  const inputs = {
    appId: o.appId,
    timestamp: String(o.timestamp ?? Date.now()),
    nonce: o.nonce ?? randomBytes(16).toString('base64url'),
    method: o.method,
    target: wireTarget(o.url),
    body: bodyBytes(o.body),
  };
  const headers: SignatureHeaderValues = {
    [SIGNATURE_HEADERS.appId]: inputs.appId,
    [SIGNATURE_HEADERS.timestamp]: inputs.timestamp,
    [SIGNATURE_HEADERS.nonce]: inputs.nonce,
    [SIGNATURE_HEADERS.signature]: signatureHex(o.secret, inputs),
  };
  if (o.keyId !== undefined) headers[SIGNATURE_HEADERS.keyId] = o.keyId;
  return { headers, stringToSign: stringToSign(inputs), target: inputs.target };
}

/**
 * Signs one request (Rampart-HMAC-SHA256) and returns the headers to send
 * with it. Sign right before sending: the timestamp must be within the
 * server's skew (default ±180 s) and every request needs a fresh nonce.
 */
export function signRequest(o: SignRequestOptions): SignatureHeaderValues {
  return signRequestDetailed(o).headers;
}
