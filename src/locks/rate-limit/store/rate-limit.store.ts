import type { DecideRequest, Decision } from '../core/decision.types.js';

/**
 * The state behind the rate-limit lock: one interface, a Redis store (one Lua
 * call per slot) and a memory store (same algorithm in TypeScript). Both pass
 * the shared scenario table in test/support/rate-limit-scenarios.ts.
 */
export interface RateLimitStore {
  /** All buckets decided at once: every bucket is charged, or none is. */
  decide(req: DecideRequest): Promise<Decision>;
}

/** Injection token of the service's RateLimitStore: Redis when it is configured, else memory. */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
