import { SigningCredentials, signRequest } from './sign-request.js';
import { signRequestRfc9421 } from './sign-rfc9421.js';

/** The fetch the wrapper gives: fits the global fetch's callers and the OpenAI SDK's `fetch` option. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The fetch the wrapper calls, always with a URL (the global fetch and undici's `fetch` fit). */
export type FetchImpl = (input: URL, init?: RequestInit) => Promise<Response>;

/** Credentials plus how to sign. */
export interface SignedFetchOptions extends SigningCredentials {
  /**
   * `hmac` (default): the X-App-Id / X-Timestamp / X-Nonce / X-Signature headers
   * (Rampart-HMAC-SHA256); `rfc9421`: Signature-Input / Signature (HTTP Message
   * Signatures, hmac-sha256) with Content-Digest.
   */
  scheme?: 'hmac' | 'rfc9421';
}

type Body = string | Uint8Array | ArrayBuffer | undefined;

function bodyOf(body: RequestInit['body']): Body {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer)
    return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError(
    'signedFetch: the body must be a string, Uint8Array, ArrayBuffer or URLSearchParams (buffer streams, Blob and FormData first: the signature covers the exact bytes)',
  );
}

/**
 * Wraps a fetch function so that every call is signed just before it is sent,
 * with a fresh timestamp and nonce each time — so a client that retries by
 * calling fetch again (the OpenAI SDKs do on 429 and 5xx) sends a new
 * signature with every attempt, never a replayed nonce. Works with the global
 * fetch, undici's `fetch` (`createSignedFetch(creds, undici.fetch)`) and as
 * the `fetch` option of the official OpenAI SDK:
 * `new OpenAI({ baseURL: 'https://rampart.example/v1', apiKey: 'unused', fetch: createSignedFetch(creds) })`.
 * A `Request` input is read (its body buffered) before it is signed.
 */
export function createSignedFetch(
  options: SignedFetchOptions,
  fetchImpl: FetchImpl = globalThis.fetch,
): FetchLike {
  const { scheme = 'hmac', ...credentials } = options;
  const sign = scheme === 'rfc9421' ? signRequestRfc9421 : signRequest;
  const send = (url: URL, init: RequestInit, body: Body): Promise<Response> => {
    const signature = sign({ ...credentials, method: init.method ?? 'GET', url, body });
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(signature)) headers.set(k, v);
    return fetchImpl(url, { ...init, headers });
  };
  return (input, init = {}) => {
    if (typeof input === 'string' || input instanceof URL)
      return send(new URL(input), init, bodyOf(init.body));
    if (typeof Request === 'function' && input instanceof Request) return fromRequest(input, init);
    throw new TypeError('signedFetch: pass a URL (string or URL) or a Request');
  };

  async function fromRequest(req: Request, init: RequestInit): Promise<Response> {
    const headers = new Headers(req.headers);
    new Headers(init.headers).forEach((v, k) => headers.set(k, v));
    const body =
      init.body !== undefined ? bodyOf(init.body) : req.body ? await req.arrayBuffer() : undefined;
    const merged: RequestInit = {
      method: init.method ?? req.method,
      headers,
      signal: init.signal ?? req.signal,
      redirect: init.redirect ?? req.redirect,
    };
    if (body !== undefined) merged.body = body;
    return send(new URL(req.url), merged, body);
  }
}

/** One signed fetch with the global fetch. */
export function signedFetch(
  credentials: SignedFetchOptions,
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  return createSignedFetch(credentials)(input, init);
}
