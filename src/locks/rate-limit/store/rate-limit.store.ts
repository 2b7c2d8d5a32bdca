import type { DecideRequest, Decision } from '../core/decision.types.js';

/**
 * The state behind the rate-limit lock: one interface, a Redis store (one Lua
 * call per slot) and a memory store (same algorithm in TypeScript). Both pass
 * the shared scenario table in test/support/rate-limit-scenarios.ts.
 */
export interface RateLimitStore {
  /** All buckets decided at once: every bucket is charged, or none is. */
  decide(req: DecideRequest): Promise<Decision>;
  /**
   * Gives back the leases one request took (leased kinds: concurrency), by their keys and the request's lease id.
   * A lease that expired already is no longer there; a failed release is healed by the lease's expiry.
   */
  release(lease: Lease): Promise<void>;
}

/** The concurrency leases of one allowed request: the keys it took a slot in, and its random lease id. */
export interface Lease {
  id: string;
  keys: readonly { key: string; group: string }[];
}

/** Injection token of the service's RateLimitStore: Redis when it is configured, else memory. */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
