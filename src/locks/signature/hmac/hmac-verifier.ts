import { stringToSign } from './canonical.js';
import { parseHmacHeaders } from './hmac-headers.js';
import { matchSecret } from './mac.js';
import { accepted, matchKey } from '../session-keys/session-key-verify.js';
import { SignatureFailure, fail } from '../signature.problems.js';
import {
  AppLookup,
  SignedRequestView,
  Verified,
  VerifyOptions,
  skewSecondsOf,
} from '../verify.types.js';

/**
 * Verifies a Rampart-HMAC-SHA256 request, cheap checks first: headers, clock,
 * app, MAC. Stateless: the caller claims the nonce only after this succeeded.
 */
export function verifyHmacRequest(
  req: SignedRequestView,
  apps: AppLookup,
  opts: VerifyOptions,
): Verified | SignatureFailure {
  const h = parseHmacHeaders(req.headers);
  if ('ok' in h) return h;
  const app = apps.get(h.appId);
  const skew = skewSecondsOf(app, opts);
  if (Math.abs(opts.now - h.timestampMs) > skew * 1000) {
    return fail(
      'clock_skew',
      'hmac',
      `X-Timestamp is more than ${skew} s away from the server time`,
      { serverTime: opts.now },
    );
  }
  const sts = stringToSign({
    appId: h.appId,
    timestamp: h.timestamp,
    nonce: h.nonce,
    method: req.method,
    target: req.target,
    body: req.body,
  });
  if (!app || !app.active) {
    matchSecret(undefined, h.keyId, sts, h.signature, opts.now);
    return fail('unknown_app', 'hmac', 'unknown or inactive app');
  }
  const matched = matchKey(app, h.keyId, sts, h.signature, opts.now);
  if (matched === undefined) {
    return fail('bad_signature', 'hmac', 'signature does not match', {
      stringToSign: sts,
      appId: app.id,
      debug: app.debug,
    });
  }
  return accepted(app, matched, h.nonce, skew, opts.now, 'hmac');
}
