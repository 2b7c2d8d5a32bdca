import type { Dispatcher } from 'undici';
import { SigningCredentials, signRequest } from './sign-request.js';

type DispatchFn = Dispatcher['dispatch'];

function headerRecord(h: Dispatcher.DispatchOptions['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!h) return out;
  if (Array.isArray(h)) {
    for (let i = 0; i + 1 < h.length; i += 2) out[String(h[i])] = h[i + 1] as string;
    return out;
  }
  const entries =
    typeof (h as Iterable<unknown>)[Symbol.iterator] === 'function'
      ? [...(h as Iterable<[string, string]>)]
      : Object.entries(h);
  for (const [k, v] of entries) if (v !== undefined) out[k] = v as string | string[];
  return out;
}

function bodyOf(body: Dispatcher.DispatchOptions['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError(
    'signing interceptor: the body must be a string or Buffer (the signature covers the exact bytes); for undici.fetch use createSignedFetch(creds, undici.fetch)',
  );
}

/**
 * An undici interceptor that signs every request dispatched through it:
 * `new Agent().compose(signingInterceptor(creds))`, then `undici.request(url, { dispatcher })`.
 */
export function signingInterceptor(
  credentials: SigningCredentials,
): (dispatch: DispatchFn) => DispatchFn {
  return (dispatch) => (opts, handler) => {
    if ((opts as { query?: unknown }).query !== undefined)
      throw new TypeError(
        'signing interceptor: put the query in the URL (the `query` option is not signed)',
      );
    const signature = signRequest({
      ...credentials,
      method: opts.method,
      url: opts.path,
      body: bodyOf(opts.body),
    });
    const headers = headerRecord(opts.headers);
    for (const k of Object.keys(headers)) if (k.toLowerCase() in signature) delete headers[k];
    return dispatch({ ...opts, headers: { ...headers, ...signature } }, handler);
  };
}
