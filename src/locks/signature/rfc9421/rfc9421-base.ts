import type { IncomingHttpHeaders } from 'node:http';

/** The parts of a request that RFC 9421 derived components are made of. */
export interface Rfc9421Message {
  method: string;
  /** Request target as on the wire (path and optional `?query`). */
  target: string;
  headers: IncomingHttpHeaders;
  scheme: 'http' | 'https';
}

/** Components whose presence Rampart requires, and what satisfies each. */
export function missingRequiredComponents(
  components: readonly string[],
  target: string,
  bodyLength: number,
): string[] {
  const has = (...names: string[]): boolean => names.some((n) => components.includes(n));
  const missing: string[] = [];
  if (!has('@method')) missing.push('@method');
  if (!has('@path', '@target-uri', '@request-target')) missing.push('@path (or @target-uri)');
  if (target.includes('?') && !has('@query', '@target-uri', '@request-target'))
    missing.push('@query');
  if (bodyLength > 0 && !has('content-digest')) missing.push('content-digest');
  return missing;
}

/** The value of one covered component, or undefined when the request does not have it. */
export function componentValue(name: string, m: Rfc9421Message): string | undefined {
  const q = m.target.indexOf('?');
  const path = q < 0 ? m.target : m.target.slice(0, q);
  const host = m.headers.host;
  switch (name) {
    case '@method':
      return m.method.toUpperCase();
    case '@path':
      return path === '' ? '/' : path;
    case '@query':
      return q < 0 ? '?' : m.target.slice(q);
    case '@request-target':
      return m.target;
    case '@scheme':
      return m.scheme;
    case '@authority':
      return host?.toLowerCase();
    case '@target-uri':
      return host === undefined ? undefined : `${m.scheme}://${host.toLowerCase()}${m.target}`;
    default: {
      if (name.startsWith('@')) return undefined;
      const v = m.headers[name];
      if (v === undefined) return undefined;
      return (Array.isArray(v) ? v.map((x) => x.trim()).join(', ') : v.trim()).replace(
        /\r?\n[ \t]*/g,
        ' ',
      );
    }
  }
}

/**
 * The signature base (RFC 9421 §2.5): one `"name": value` line per covered
 * component, then the `"@signature-params"` line; LF-separated, no trailing
 * LF. Returns the first component the message lacks instead, if any.
 */
export function signatureBase(
  components: readonly string[],
  signatureParams: string,
  m: Rfc9421Message,
): { base: string } | { missing: string } {
  const lines: string[] = [];
  for (const c of components) {
    const v = componentValue(c, m);
    if (v === undefined) return { missing: c };
    lines.push(`"${c}": ${v}`);
  }
  lines.push(`"@signature-params": ${signatureParams}`);
  return { base: lines.join('\n') };
}
