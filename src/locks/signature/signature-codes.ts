/** Why the signature lock refused a request: the stable `error` code of the answer. */
export type SignatureErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'clock_skew'
  | 'unknown_app'
  | 'bad_signature'
  | 'replayed_nonce'
  | 'nonce_store_unavailable';

export const SIGNATURE_ERROR_CODES: readonly SignatureErrorCode[] = [
  'missing_header',
  'malformed_header',
  'clock_skew',
  'unknown_app',
  'bad_signature',
  'replayed_nonce',
  'nonce_store_unavailable',
];

/** Which signing scheme a request used (selects the WWW-Authenticate challenge). */
export type SignatureScheme = 'hmac' | 'rfc9421';

/** A verification failure before it becomes an HTTP answer (keeps the verifier free of Nest). */
export interface SignatureFailure {
  ok: false;
  code: SignatureErrorCode;
  scheme: SignatureScheme | 'none';
  /** Safe, client-facing explanation (never a secret or the expected signature). */
  detail: string;
  /** Server time in ms (clock_skew). */
  serverTime?: number;
  /** The server's string to sign (bad_signature); shown only when the app has `debug: true`. */
  stringToSign?: string;
  /** App the failure is about, when it is a known app (logs only). */
  appId?: string;
  debug?: boolean;
}

export function fail(
  code: SignatureErrorCode,
  scheme: SignatureFailure['scheme'],
  detail: string,
  extra: Partial<Omit<SignatureFailure, 'ok' | 'code' | 'scheme' | 'detail'>> = {},
): SignatureFailure {
  return { ok: false, code, scheme, detail, ...extra };
}
