import { hasHmacHeaders } from './hmac/hmac-headers.js';
import { verifyHmacRequest } from './hmac/hmac-verifier.js';
import { verifyRfc9421Request } from './rfc9421/rfc9421-verifier.js';
import { SignatureFailure, fail } from './signature.problems.js';
import type { AppLookup, SignedRequestView, Verified, VerifyOptions } from './verify.types.js';

/** The request carries no signature header of either scheme. */
export const UNSIGNED = { ok: false, unsigned: true } as const;
export type Unsigned = typeof UNSIGNED;

/**
 * Picks the scheme from the headers and verifies the request with it. Pure
 * and stateless (no nonce claim), never throws on any input.
 */
export function verifyRequest(
  req: SignedRequestView,
  apps: AppLookup,
  opts: VerifyOptions,
): Verified | SignatureFailure | Unsigned {
  const hmac = hasHmacHeaders(req.headers);
  const rfc = req.headers['signature-input'] !== undefined || req.headers.signature !== undefined;
  if (hmac && rfc)
    return fail(
      'malformed_header',
      'none',
      'use one scheme: X-Signature headers or Signature-Input/Signature, not both',
    );
  if (hmac) return verifyHmacRequest(req, apps, opts);
  if (rfc) return verifyRfc9421Request(req, apps, opts);
  return UNSIGNED;
}
