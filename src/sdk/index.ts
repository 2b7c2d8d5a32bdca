/**
 * Rampart client SDK: sign requests for the signature lock
 * (Rampart-HMAC-SHA256, or RFC 9421). `import { signRequest, createSignedFetch } from 'rampart/sdk'`.
 * The canonicalisation is the server's own code (one implementation).
 */
export type {
  SigningCredentials,
  SignRequestOptions,
  SignedRequest,
  SignatureHeaderValues,
} from './sign-request.js';
export { signRequest, signRequestDetailed, wireTarget } from './sign-request.js';
export { signRequestRfc9421 } from './sign-rfc9421.js';
export type { FetchImpl, FetchLike, SignedFetchOptions } from './signed-fetch.js';
export { createSignedFetch, signedFetch } from './signed-fetch.js';
export { signingInterceptor } from './undici-interceptor.js';
export type { DeriveSessionKeyOptions, SessionKey } from './session-key.js';
export { deriveSessionKey, sessionKeyCredentials } from './session-key.js';
export {
  EMPTY_BODY_SHA256,
  SIGNATURE_HEADERS,
  bodySha256Hex,
  canonicalQuery,
  canonicalTarget,
  stringToSign,
} from '../locks/signature/hmac/canonical.js';
export { contentDigest } from '../locks/signature/rfc9421/content-digest.js';
