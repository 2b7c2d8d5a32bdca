import type { IncomingHttpHeaders } from 'node:http';
import { SIGNATURE_HEADERS } from './canonical.js';
import { ID_PATTERN } from '../apps/app.types.js';
import { isKeyIdForm } from '../session-keys/session-key-id.js';
import { SignatureFailure, fail } from '../signature.problems.js';
import { NONCE_PATTERN } from '../verify.types.js';

/** The X-* signature headers of a request, validated. */
export interface HmacHeaders {
  appId: string;
  /** X-Timestamp as sent (13 digits). */
  timestamp: string;
  /** X-Timestamp as a number of milliseconds. */
  timestampMs: number;
  nonce: string;
  /** The 32 MAC bytes decoded from the lower-case hex X-Signature. */
  signature: Buffer;
  keyId?: string;
}

const TIMESTAMP_PATTERN = /^[1-9][0-9]{12}$/;
const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

const REQUIRED = [
  SIGNATURE_HEADERS.appId,
  SIGNATURE_HEADERS.timestamp,
  SIGNATURE_HEADERS.nonce,
  SIGNATURE_HEADERS.signature,
] as const;

/** One header value; a repeated header (array, or a comma-joined list) is not one value. */
function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** True when the request carries any header of the X-* scheme. */
export function hasHmacHeaders(headers: IncomingHttpHeaders): boolean {
  // Written out, not `REQUIRED.some(…)`: no closure per request on the hot path.
  return (
    headers[SIGNATURE_HEADERS.appId] !== undefined ||
    headers[SIGNATURE_HEADERS.timestamp] !== undefined ||
    headers[SIGNATURE_HEADERS.nonce] !== undefined ||
    headers[SIGNATURE_HEADERS.signature] !== undefined ||
    headers[SIGNATURE_HEADERS.keyId] !== undefined
  );
}

const absent = (headers: IncomingHttpHeaders, h: string): boolean =>
  headers[h] === undefined || headers[h] === '';

/**
 * Checks presence and form of the X-* headers (no clock, no state). Never
 * throws, whatever the input: the result is the headers or a failure.
 */
export function parseHmacHeaders(headers: IncomingHttpHeaders): HmacHeaders | SignatureFailure {
  // The list of missing headers is built only when one is missing (no array per good request).
  if (
    absent(headers, SIGNATURE_HEADERS.appId) ||
    absent(headers, SIGNATURE_HEADERS.timestamp) ||
    absent(headers, SIGNATURE_HEADERS.nonce) ||
    absent(headers, SIGNATURE_HEADERS.signature)
  ) {
    const missing = REQUIRED.filter((h) => absent(headers, h));
    return fail('missing_header', 'hmac', `missing ${missing.map(display).join(', ')}`);
  }
  const appId = single(headers, SIGNATURE_HEADERS.appId)!;
  const timestamp = single(headers, SIGNATURE_HEADERS.timestamp)!;
  const nonce = single(headers, SIGNATURE_HEADERS.nonce)!;
  const sig = single(headers, SIGNATURE_HEADERS.signature)!;
  const keyId = single(headers, SIGNATURE_HEADERS.keyId);
  if (
    !ID_PATTERN.test(appId) ||
    !TIMESTAMP_PATTERN.test(timestamp) ||
    !NONCE_PATTERN.test(nonce) ||
    !SIGNATURE_PATTERN.test(sig) ||
    (keyId !== undefined && !isKeyIdForm(keyId))
  )
    return malformed(appId, timestamp, nonce, sig, keyId);
  const parsed: HmacHeaders = {
    appId,
    timestamp,
    timestampMs: Number(timestamp),
    nonce,
    signature: Buffer.from(sig, 'hex'),
  };
  if (keyId !== undefined) parsed.keyId = keyId;
  return parsed;
}

/** Every malformed header, listed (built only for a malformed request). */
function malformed(
  appId: string,
  timestamp: string,
  nonce: string,
  sig: string,
  keyId: string | undefined,
): SignatureFailure {
  const problems: string[] = [];
  if (!ID_PATTERN.test(appId)) problems.push('X-App-Id must be 1-64 characters of [A-Za-z0-9_.-]');
  if (!TIMESTAMP_PATTERN.test(timestamp))
    problems.push('X-Timestamp must be milliseconds since the Unix epoch (13 digits)');
  if (!NONCE_PATTERN.test(nonce))
    problems.push('X-Nonce must be 16-64 characters of [A-Za-z0-9_-]');
  if (!SIGNATURE_PATTERN.test(sig))
    problems.push('X-Signature must be 64 lower-case hex characters (HMAC-SHA256)');
  if (keyId !== undefined && !isKeyIdForm(keyId))
    problems.push(
      'X-Key-Id must be 1-64 characters of [A-Za-z0-9_.-], or a session key id (sk1.…)',
    );
  return fail('malformed_header', 'hmac', problems.join('; '));
}

function display(h: string): string {
  return h.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}
