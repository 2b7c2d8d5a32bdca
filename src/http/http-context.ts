/**
 * The one adapter-neutral helper: everything the locks and controllers need
 * from a request or reply, on both platform-express and platform-fastify.
 * Nothing else in the code base may touch an adapter-specific API.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { CidrSet, canonicalIp, normalizeIp } from './cidr.js';
import type { RequestState } from './request-state.js';

// The reply side lives in http-reply.ts; re-exported for the many callers.
export {
  type AnyReply,
  onReplyClosed,
  rawResponse,
  setReplyHeader,
  takeOverReply,
} from './http-reply.js';

/** The request object of either adapter (express Request or FastifyRequest). */
export interface AnyRequest {
  headers: IncomingHttpHeaders;
  method: string;
  /** express: url relative to the mount point; fastify: the raw url. Use `rawUrl()`. */
  url: string;
  originalUrl?: string;
  raw?: { url?: string; socket?: Socket; rawHeaders?: string[]; [key: symbol]: unknown };
  socket?: Socket;
  /** Header names and values as received, in order (duplicates kept). */
  rawHeaders?: string[];
  rawBody?: Buffer;
  body?: unknown;
  /** Route parameters (both adapters fill them before guards run). */
  params?: Record<string, string | undefined>;
  [key: symbol]: unknown;
}

const STATE = Symbol.for('rampart.state');

/** Per-request state that the locks share (identity, client address, route policy…). */
export function requestState(req: AnyRequest): RequestState {
  // fastify wraps the Node request; keep the state on the Node request so raw hooks see it too.
  const target = (req.raw ?? req) as AnyRequest;
  let s = target[STATE] as RequestState | undefined;
  if (s === undefined) {
    s = {};
    target[STATE] = s;
  }
  return s;
}

/** One header value (first one when repeated), or undefined. */
export function header(req: AnyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Marks the start of the backend call of this request (see RequestState.backendCalled). */
export function markBackendCall(req: AnyRequest): void {
  requestState(req).backendCalled = true;
}

/** How often a header appears on the wire (Node keeps only the first `authorization`). */
export function headerCount(req: AnyRequest, name: string): number {
  const raw = req.rawHeaders ?? req.raw?.rawHeaders;
  if (!raw) return req.headers[name] === undefined ? 0 : 1;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) n++;
  return n;
}

/** The request target exactly as sent on the wire: path and query, not decoded, not normalised. */
export function rawUrl(req: AnyRequest): string {
  return req.originalUrl ?? req.raw?.url ?? req.url;
}

/** The body bytes exactly as received (empty buffer when there was no body). */
export function rawBody(req: AnyRequest): Buffer {
  return req.rawBody ?? EMPTY;
}
const EMPTY = Buffer.alloc(0);

/** The TCP peer address of the request. */
export function peerAddress(req: AnyRequest): string {
  const sock = req.socket ?? req.raw?.socket;
  const addr = sock?.remoteAddress ?? '';
  return canonicalIp(addr) ?? normalizeIp(addr);
}

/**
 * The client address, in canonical form (see canonicalIp): the socket peer,
 * or — only when the peer is a trusted proxy — the right-most
 * X-Forwarded-For entry that is not itself trusted. A hop that is not an
 * address makes the whole header untrusted: the peer is used and
 * `onMalformed` is told (for a counter).
 */
export function clientAddress(req: AnyRequest, trusted: CidrSet, onMalformed?: () => void): string {
  const peer = peerAddress(req);
  if (trusted.size === 0 || !trusted.has(peer)) return peer;
  const xff = req.headers['x-forwarded-for'];
  if (!xff) return peer;
  const hops = (Array.isArray(xff) ? xff.join(',') : xff).split(',');
  let left: string | undefined;
  for (let i = hops.length - 1; i >= 0; i--) {
    if (hops[i]!.trim() === '') continue;
    const hop = canonicalIp(hops[i]!);
    if (hop === undefined) {
      onMalformed?.();
      return peer;
    }
    if (!trusted.has(hop)) return hop;
    left = hop;
  }
  return left ?? peer;
}
