import { type AnyReply, setReplyHeader } from '../../http/http-context.js';
import {
  listField,
  rateLimitField,
  rateLimitPolicyField,
  tokenHeaders,
} from './core/rate-limit-headers.js';
import type { Verdict } from './limiter/verdicts.js';

/** The RateLimit fields (and the token headers) of an allowed request. */
export function setAllowedHeaders(reply: AnyReply, v: Extract<Verdict, { kind: 'allowed' }>): void {
  // IETF fields are lists: the tightest request rule, then the tightest token budget
  // (built without an array per request).
  const { quota: q, tokens: t } = v;
  if (q !== undefined || t !== undefined) {
    setReplyHeader(reply, 'RateLimit-Policy', listField(q, t, rateLimitPolicyField));
    setReplyHeader(reply, 'RateLimit', listField(q, t, rateLimitField));
  }
  if (v.tokens)
    for (const [name, value] of Object.entries(tokenHeaders(v.tokens)))
      setReplyHeader(reply, name, value);
}
