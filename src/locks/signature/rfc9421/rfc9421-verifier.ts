import { checkContentDigest } from './content-digest.js';
import { matchSecret } from '../hmac/mac.js';
import { accepted, matchKey } from '../session-keys/session-key-verify.js';
import { missingRequiredComponents, signatureBase } from './rfc9421-base.js';
import { parseRfc9421 } from './rfc9421-input.js';
import { SignatureFailure, fail } from '../signature.problems.js';
import {
  AppLookup,
  SignedRequestView,
  Verified,
  VerifyOptions,
  skewSecondsOf,
} from '../verify.types.js';

/**
 * Verifies an RFC 9421 (HTTP Message Signatures, `hmac-sha256`) request:
 * form and required coverage, `created` within the skew, app, MAC, then the
 * body against Content-Digest (RFC 9530). Stateless like the HMAC verifier.
 */
export function verifyRfc9421Request(
  req: SignedRequestView,
  apps: AppLookup,
  opts: VerifyOptions,
): Verified | SignatureFailure {
  const s = parseRfc9421(req.headers);
  if ('ok' in s) return s;
  const missing = missingRequiredComponents(s.components, req.target, req.body.length);
  if (missing.length > 0)
    return fail('malformed_header', 'rfc9421', `the signature must cover ${missing.join(', ')}`);
  const built = signatureBase(s.components, s.signatureParams, req);
  if ('missing' in built)
    return fail(
      'malformed_header',
      'rfc9421',
      `covered component "${built.missing}" is not in the request`,
    );

  const app = apps.get(s.appId);
  const skew = skewSecondsOf(app, opts);
  if (Math.abs(opts.now - s.created * 1000) > skew * 1000) {
    return fail(
      'clock_skew',
      'rfc9421',
      `created is more than ${skew} s away from the server time`,
      { serverTime: opts.now },
    );
  }
  if (s.expires !== undefined && opts.now > s.expires * 1000) {
    return fail('clock_skew', 'rfc9421', 'the signature has expired', { serverTime: opts.now });
  }
  if (!app || !app.active) {
    matchSecret(undefined, s.keyId, built.base, s.signature, opts.now);
    return fail('unknown_app', 'rfc9421', 'unknown or inactive app');
  }
  const matched = matchKey(app, s.keyId, built.base, s.signature, opts.now);
  if (matched === undefined) {
    return fail('bad_signature', 'rfc9421', 'signature does not match', {
      stringToSign: built.base,
      appId: app.id,
      debug: app.debug,
    });
  }
  const digest = req.headers['content-digest'];
  if (s.components.includes('content-digest') && typeof digest === 'string') {
    const result = checkContentDigest(digest, req.body);
    if (result === 'malformed')
      return fail(
        'malformed_header',
        'rfc9421',
        'Content-Digest must hold a sha-256 or sha-512 byte sequence',
        { appId: app.id },
      );
    if (result === 'mismatch')
      return fail('bad_signature', 'rfc9421', 'Content-Digest does not match the body', {
        appId: app.id,
      });
  }
  return accepted(app, matched, s.nonce, skew, opts.now, 'rfc9421');
}
