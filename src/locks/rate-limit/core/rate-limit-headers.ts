/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers, structured
 * fields): `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` and
 * `RateLimit: "<name>";r=<remaining>;t=<seconds until reset>`. Names are
 * `<route policy>.<rule>`, so a client can tell the limits apart.
 */
export interface QuotaState {
  /** `<route policy>.<rule>`. */
  name: string;
  /** Quota in force (tokens). */
  limit: number;
  /** Seconds to refill the whole quota. */
  windowS: number;
  remaining: number;
  /** Seconds until the quota is whole again (or until the request may be retried, on a 429). */
  resetS: number;
}

/** Quoted names, made once per name (names come from the policies: a small set; bounded anyway). */
const QUOTED = new Map<string, string>();
const MAX_QUOTED = 1_024;

function quote(name: string): string {
  let q = QUOTED.get(name);
  if (q === undefined) {
    if (QUOTED.size >= MAX_QUOTED) QUOTED.clear();
    q = `"${name.replace(/[\\"]/g, '')}"`;
    QUOTED.set(name, q);
  }
  return q;
}

export function rateLimitPolicyField(q: QuotaState): string {
  return `${quote(q.name)};q=${Math.max(0, Math.floor(q.limit))};w=${Math.max(1, Math.ceil(q.windowS))}`;
}

export function rateLimitField(q: QuotaState): string {
  return `${quote(q.name)};r=${Math.max(0, Math.floor(q.remaining))};t=${Math.max(0, Math.ceil(q.resetS))}`;
}

/**
 * One IETF field (a list) of the request rule's state, then the token budget's, whichever are there
 * (at least one): no array per request.
 */
export function listField(
  q: QuotaState | undefined,
  t: QuotaState | undefined,
  field: (s: QuotaState) => string,
): string {
  if (q === undefined) return field(t!);
  return t === undefined ? field(q) : `${field(q)}, ${field(t)}`;
}

/** Retry-After: whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * A duration as OpenAI writes its `x-ratelimit-reset-*` headers: `250ms`, `1s`, `6m0s`, `1h2m3.5s` (what the
 * official SDKs and their users parse).
 */
export function openAiDuration(seconds: number): string {
  const ms = Math.max(0, Math.ceil(seconds * 1000));
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Number(((ms % 60_000) / 1000).toFixed(3));
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${s}s`;
}

/**
 * OpenAI's token headers for the tightest token budget (docs/rate-limit.md#token-rules):
 * `x-ratelimit-limit-tokens`, `x-ratelimit-remaining-tokens`, `x-ratelimit-reset-tokens`.
 */
export function tokenHeaders(q: QuotaState): Record<string, string> {
  return {
    'x-ratelimit-limit-tokens': String(Math.max(0, Math.floor(q.limit))),
    'x-ratelimit-remaining-tokens': String(Math.max(0, Math.floor(q.remaining))),
    'x-ratelimit-reset-tokens': openAiDuration(q.resetS),
  };
}
