import type { DecideRequest, Decision } from '../core/decision.types.js';
import type { UsageWrite } from '../core/usage-keys.js';

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
  /**
   * Settles token reservations (reconciled kinds: tokens) when answers have ended: each gives back what it
   * reserved and charges what was used, in the window it reserved in only; one call per hash slot. `usage`: the
   * answers' usage buckets (docs/quotas.md#usage-and-spend), written in the same call as the service tag's slot.
   */
  settle(items: readonly Settlement[], usage?: readonly UsageWrite[]): Promise<void>;
  /** Usage bucket hashes (`<model>:p|c|s` → count), in the order of `keys` (one slot); empty when none. */
  readUsage(keys: readonly string[]): Promise<Record<string, string>[]>;
}

/** One token reservation to settle: its bucket, what it reserved and used, and its window's end (epoch µs). */
export interface Settlement {
  key: string;
  group: string;
  reserved: number;
  used: number;
  untilUs: number;
}

/** The concurrency leases of one allowed request: the keys it took a slot in, and its random lease id. */
export interface Lease {
  id: string;
  keys: readonly { key: string; group: string }[];
}

/** Injection token of the service's RateLimitStore: Redis when it is configured, else memory. */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
