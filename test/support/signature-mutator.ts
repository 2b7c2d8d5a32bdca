/**
 * Mutations of a correctly signed Rampart-HMAC request, for the signature
 * fuzz runs (in-process and over HTTP). Each mutation changes one thing an
 * attacker controls: a header value (one character, truncated, extended,
 * repeated, removed, a neighbour app or key id), the method, the path, the
 * query, or one byte of the body. A seeded PRNG makes every run repeatable.
 */

export interface WireRequest {
  method: string;
  /** Path and optional query, as on the wire. */
  target: string;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** mulberry32: small, fast, seeded. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SIGNED_HEADERS = ['x-app-id', 'x-timestamp', 'x-nonce', 'x-signature'] as const;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~%/?&=+ ';

/** Names of the mutation kinds, for reports. */
export const MUTATIONS = [
  'header-char',
  'header-truncate',
  'header-extend',
  'header-repeat',
  'header-remove',
  'header-case',
  'key-id',
  'method',
  'path-char',
  'query-add',
  'query-change',
  'body-byte',
  'body-append',
  'timestamp-shift',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** One mutated copy of `req` (never `req` itself) and the kind of mutation made. */
export function mutate(
  req: WireRequest,
  rnd: () => number,
  otherAppIds: string[] = [],
): { req: WireRequest; kind: Mutation } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const char = () => pick(ALPHABET.split(''));
  const out: WireRequest = {
    method: req.method,
    target: req.target,
    headers: { ...req.headers },
    body: Buffer.from(req.body),
  };
  const kind = pick(MUTATIONS);
  const h = pick(SIGNED_HEADERS);
  const value = String(req.headers[h] ?? '');
  const at = Math.floor(rnd() * Math.max(1, value.length));
  switch (kind) {
    case 'header-char': {
      let c = char();
      while (c === value[at]) c = char();
      out.headers[h] = value.slice(0, at) + c + value.slice(at + 1);
      break;
    }
    case 'header-truncate':
      out.headers[h] = value.slice(0, at);
      break;
    case 'header-extend':
      out.headers[h] = value + char();
      break;
    case 'header-repeat':
      out.headers[h] = [value, value];
      break;
    case 'header-remove':
      delete out.headers[h];
      break;
    case 'header-case':
      // Upper-case hex, a different app id spelling, …: never the same bytes.
      out.headers[h] = value.toUpperCase() === value ? value.toLowerCase() : value.toUpperCase();
      if (out.headers[h] === value) out.headers[h] = value + '0';
      if (h === 'x-app-id' && otherAppIds.some((id) => id !== value))
        out.headers[h] = pick(otherAppIds.filter((id) => id !== value));
      break;
    case 'key-id':
      out.headers['x-key-id'] = pick(['k2', 'k9', 'K1', 'k1.', '']);
      break;
    case 'method':
      out.method = pick(
        ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].filter((m) => m !== req.method),
      );
      break;
    case 'path-char': {
      const q = out.target.indexOf('?');
      const path = q < 0 ? out.target : out.target.slice(0, q);
      const i = 1 + Math.floor(rnd() * (path.length - 1));
      const c = pick('abcxyz019'.split('').filter((x) => x !== path[i]));
      out.target = path.slice(0, i) + c + path.slice(i + 1) + (q < 0 ? '' : out.target.slice(q));
      break;
    }
    case 'query-add':
      out.target += `${out.target.includes('?') ? '&' : '?'}${pick(['a', 'stream', 'x'])}=${Math.floor(rnd() * 10)}`;
      break;
    case 'query-change': {
      const q = out.target.indexOf('?');
      out.target =
        q < 0
          ? `${out.target}?limit=2`
          : `${out.target.slice(0, q)}?limit=${2 + Math.floor(rnd() * 9)}0`;
      break;
    }
    case 'body-byte': {
      if (out.body.length === 0) out.body = Buffer.from(' ');
      else {
        const i = Math.floor(rnd() * out.body.length);
        out.body[i] = (out.body[i]! + 1 + Math.floor(rnd() * 254)) % 256;
      }
      break;
    }
    case 'body-append':
      out.body = Buffer.concat([out.body, Buffer.from(pick([' ', '\n', '{}', '0']))]);
      break;
    case 'timestamp-shift':
      out.headers['x-timestamp'] = String(
        Number(req.headers['x-timestamp']) + pick([-1, 1, -1000, 1000, -200_000, 200_000]),
      );
      break;
  }
  return { req: out, kind };
}
