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

const quote = (name: string): string => `"${name.replace(/[\\"]/g, '')}"`;

export function rateLimitPolicyField(q: QuotaState): string {
  return `${quote(q.name)};q=${Math.max(0, Math.floor(q.limit))};w=${Math.max(1, Math.ceil(q.windowS))}`;
}

export function rateLimitField(q: QuotaState): string {
  return `${quote(q.name)};r=${Math.max(0, Math.floor(q.remaining))};t=${Math.max(0, Math.ceil(q.resetS))}`;
}

/** Retry-After: whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
