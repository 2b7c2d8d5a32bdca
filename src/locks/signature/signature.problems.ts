import type { ProblemCode } from '../../common/problem-codes.js';
import { ProblemException } from '../../common/problem.exception.js';
import type { SignatureScheme } from './signature.types.js';

/** Why the signature lock refused a request: the stable `error` code of the answer. */
export const SIGNATURE_ERROR_CODES = [
  'missing_header',
  'malformed_header',
  'clock_skew',
  'unknown_app',
  'bad_signature',
  'replayed_nonce',
  'nonce_store_unavailable',
  'key_expired',
  'key_out_of_scope',
  'key_revoked',
  'bad_secret_token',
] as const satisfies readonly ProblemCode[];

export type SignatureErrorCode = (typeof SIGNATURE_ERROR_CODES)[number];

/** A verification failure before it becomes an HTTP answer (keeps the verifiers free of Nest). */
export interface SignatureFailure {
  ok: false;
  code: SignatureErrorCode;
  scheme: SignatureScheme | 'secret-token' | 'none';
  /** Safe, client-facing explanation (never a secret or the expected signature). */
  detail: string;
  /** Server time in ms (clock_skew). */
  serverTime?: number;
  /** The server's string to sign (bad_signature); shown only when the app has `debug: true`. */
  stringToSign?: string;
  /** App the failure is about, when it is a known app (logs only). */
  appId?: string;
  debug?: boolean;
  /**
   * A refusal a well-behaved client meets in normal use (a session key that expired within its app's
   * `refreshGrace`): answered the same, but not a risk signal.
   */
  benign?: boolean;
}

export function fail(
  code: SignatureErrorCode,
  scheme: SignatureFailure['scheme'],
  detail: string,
  extra: Partial<Omit<SignatureFailure, 'ok' | 'code' | 'scheme' | 'detail'>> = {},
): SignatureFailure {
  return { ok: false, code, scheme, detail, ...extra };
}

const REALM = 'realm="rampart"';

function title(code: SignatureErrorCode): string {
  switch (code) {
    case 'missing_header':
      return 'Request signature headers are missing';
    case 'malformed_header':
      return 'Request signature headers are malformed';
    case 'clock_skew':
      return 'Request timestamp is outside the allowed clock skew';
    case 'unknown_app':
      return 'Unknown or inactive app';
    case 'bad_signature':
      return 'Request signature does not match';
    case 'replayed_nonce':
      return 'Nonce was already used';
    case 'nonce_store_unavailable':
      return 'Replay protection is unavailable; try again shortly';
    case 'key_expired':
      return 'Session key has expired';
    case 'key_out_of_scope':
      return 'Session key may not call this route';
    case 'key_revoked':
      return 'Session key was revoked';
    case 'bad_secret_token':
      return 'Secret token does not match';
  }
}

/** The WWW-Authenticate challenge(s): the scheme the client used, or both when it used none. */
function challenge(f: SignatureFailure): string {
  const err = `error="${f.code}"`;
  switch (f.scheme) {
    case 'hmac':
      return `Rampart-HMAC-SHA256 ${REALM}, ${err}`;
    case 'rfc9421':
      return `Signature ${REALM}, ${err}`;
    case 'secret-token':
      return `Secret-Token ${REALM}, ${err}`;
    case 'none':
      return `Rampart-HMAC-SHA256 ${REALM}, ${err}, Signature ${REALM}, ${err}`;
  }
}

/**
 * The 401's headers by scheme, then code, made once (frozen: every refusal of that kind shares
 * them; at most 4 × 11). Two lookups of constant strings, no key string built per refusal.
 */
const CHALLENGE_HEADERS = new Map<string, Map<string, Readonly<Record<string, string>>>>();

function challengeHeaders(f: SignatureFailure): Record<string, string> {
  let byCode = CHALLENGE_HEADERS.get(f.scheme);
  if (byCode === undefined) CHALLENGE_HEADERS.set(f.scheme, (byCode = new Map()));
  let h = byCode.get(f.code);
  if (h === undefined) {
    h = Object.freeze({ 'www-authenticate': challenge(f) });
    byCode.set(f.code, h);
  }
  return h as Record<string, string>;
}

/**
 * The answer for a refused request: problem+json with the stable `error`
 * code, 401 + WWW-Authenticate (503 + Retry-After when the nonce store is
 * down). The server's string to sign is included only for `debug` apps.
 */
export function signatureProblem(f: SignatureFailure): ProblemException {
  if (f.code === 'nonce_store_unavailable') {
    return ProblemException.fast(503, f.code, title(f.code), {
      detail: f.detail,
      headers: { 'retry-after': '1' },
    });
  }
  const headers = challengeHeaders(f);
  if ((f.code === 'clock_skew' || f.code === 'key_expired') && f.serverTime !== undefined)
    return ProblemException.fast(401, f.code, title(f.code), {
      detail: f.detail,
      headers,
      server_time: f.serverTime,
    });
  if (f.code === 'bad_signature' && f.debug && f.stringToSign !== undefined)
    return ProblemException.fast(401, f.code, title(f.code), {
      detail: f.detail,
      headers,
      string_to_sign: f.stringToSign,
    });
  return ProblemException.fast(401, f.code, title(f.code), { detail: f.detail, headers });
}
