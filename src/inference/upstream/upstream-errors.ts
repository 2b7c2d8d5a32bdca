import type { IncomingHttpHeaders } from 'node:http';
import {
  abortedCall,
  InferenceError,
  upstreamFailed,
  upstreamRejected,
  upstreamTimeout,
} from '../inference.errors.js';
import type { InferenceCall } from '../inference-backend.js';
import type { Deadline } from './deadline.js';

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);
const CREDENTIAL_STATUSES = new Set([401, 403, 407]);
const MAX_DETAIL_CHARS = 500;

/**
 * Maps an error thrown while calling the upstream (connect, send, read) to a
 * typed InferenceError. Details name an error code, never the upstream's
 * address or credentials.
 */
export function transportError(
  err: unknown,
  call: InferenceCall,
  deadline: Deadline,
): InferenceError {
  if (err instanceof InferenceError) return err;
  if (deadline.fired)
    return upstreamTimeout(`the upstream did not answer within ${deadline.ms} ms`);
  if (call.signal.aborted)
    return abortedCall(call.clientGone, 'the call was aborted (circuit breaker timeout)');
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code))
    return upstreamTimeout(`the upstream timed out (${code})`);
  return upstreamFailed(
    `the upstream could not be reached or dropped the connection (${typeof code === 'string' ? code : 'network error'})`,
  );
}

/**
 * Maps a non-2xx upstream status: 4xx → the same 4xx (`upstream_rejected`,
 * with the upstream's message unless it is about our credentials),
 * anything else → 502.
 */
export function statusError(
  status: number,
  headers: IncomingHttpHeaders,
  bodyText: string,
  secret?: string,
): InferenceError {
  if (status < 400 || status >= 500)
    return upstreamFailed(`the upstream answered ${status}`, status);
  if (CREDENTIAL_STATUSES.has(status))
    return upstreamRejected(status, `the upstream refused Rampart's credentials (${status})`);
  const out: Record<string, string> = {};
  const retryAfter = headers['retry-after'];
  if (typeof retryAfter === 'string' && /^[\w ,:]{1,64}$/.test(retryAfter))
    out['retry-after'] = retryAfter;
  return upstreamRejected(
    status,
    upstreamMessage(bodyText, secret) ?? `the upstream answered ${status}`,
    out,
  );
}

/** The `error.message` (or `message`) of an OpenAI-style error body, shortened, with the secret blanked out. */
function upstreamMessage(bodyText: string, secret?: string): string | undefined {
  let msg: unknown;
  try {
    const parsed = JSON.parse(bodyText) as {
      error?: { message?: unknown } | string;
      message?: unknown;
    };
    msg =
      typeof parsed.error === 'object' && parsed.error !== null
        ? parsed.error.message
        : (parsed.error ?? parsed.message);
  } catch {
    return undefined;
  }
  if (typeof msg !== 'string' || msg.length === 0) return undefined;
  let text = secret && secret.length >= 4 ? msg.split(secret).join('***') : msg;
  // Upstreams quote (partly masked) API keys in auth errors, e.g. "sk-abc***xyz".
  text = text.replace(/\bsk-[\w*-]+/g, '***');
  return text.slice(0, MAX_DETAIL_CHARS);
}
