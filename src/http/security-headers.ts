import helmet from 'helmet';
import type { ServerResponse } from 'node:http';

/** Header names and values, each a pair: set in order on every answer. */
type HeaderPairs = readonly (readonly [string, string])[];

/**
 * helmet's answer headers (`contentSecurityPolicy` off), recorded once at boot: none of them depends on the
 * request, so each request gets the same list set directly, without a middleware (on fastify, helmet runs
 * inside @fastify/middie, which copies the request's ip, hostname and parsed query onto the Node request and
 * decodes its path for every request). helmet stays the source of the values.
 */
export function securityHeaders(): (res: ServerResponse) => void {
  const pairs: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => void pairs.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
  };
  let done = false;
  helmet({ contentSecurityPolicy: false })({} as never, recorder as never, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    done = true;
  });
  // helmet calls next at once; a version that did not would leave answers without its headers.
  if (!done) throw new Error('security headers: helmet did not finish synchronously');
  return apply(pairs, removed);
}

function apply(pairs: HeaderPairs, removed: readonly string[]): (res: ServerResponse) => void {
  return (res) => {
    for (const [name, value] of pairs) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
  };
}
