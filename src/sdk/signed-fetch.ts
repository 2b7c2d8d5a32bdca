import { SigningCredentials, signRequest } from './sign-request.js';

/** The part of the fetch signature the wrapper needs (global fetch and undici's fetch both fit). */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

function bodyOf(body: RequestInit['body']): string | Uint8Array | ArrayBuffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer)
    return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError(
    'signedFetch: the body must be a string, Uint8Array, ArrayBuffer or URLSearchParams (buffer streams, Blob and FormData first: the signature covers the exact bytes)',
  );
}

/**
 * Wraps a fetch function so every request is signed just before it is sent
 * (fresh timestamp and nonce each time). Works with the global fetch and with
 * undici's `fetch`: `createSignedFetch(creds, undici.fetch)`.
 */
export function createSignedFetch(
  credentials: SigningCredentials,
  fetchImpl: FetchLike = globalThis.fetch,
): FetchLike {
  return (input, init = {}) => {
    if (typeof input !== 'string' && !(input instanceof URL))
      throw new TypeError('signedFetch: pass the URL as a string or URL, and options in init');
    const url = new URL(input);
    const signature = signRequest({
      ...credentials,
      method: init.method ?? 'GET',
      url,
      body: bodyOf(init.body),
    });
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(signature)) headers.set(k, v);
    return fetchImpl(url, { ...init, headers });
  };
}

/** One signed fetch with the global fetch. */
export function signedFetch(
  credentials: SigningCredentials,
  input: string | URL,
  init?: RequestInit,
): Promise<Response> {
  return createSignedFetch(credentials)(input, init);
}
