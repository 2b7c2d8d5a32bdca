/**
 * Rampart browser SDK: `import { signRequest, createSessionFetch } from 'rampart/sdk/browser'`.
 * ESM, no dependencies, WebCrypto HMAC-SHA256. Signs with a short-lived
 * session key that the app's own server mints (docs/session-keys.md) —
 * never ship an app secret to a browser.
 */
export type { BrowserCredentials, BrowserSignOptions } from './sign.js';
export { signRequest, wireTarget } from './sign.js';
export type { BrowserSessionKey, SessionFetch, SessionFetchOptions } from './session-fetch.js';
export { createSessionFetch, errorCode } from './session-fetch.js';
export { canonicalTarget, sha256Hex } from './web-crypto.js';
