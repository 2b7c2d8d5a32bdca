import type { LockOutcome } from '../../chain/lock.types.js';
import type { HeartbeatRide } from '../../redis/heartbeat-riders.js';

export type OutcomeCounts = Record<LockOutcome, number>;
/** `{ lock: { policy: counts } }`, as LockStats.snapshot() returns it. */
export type LockCounts = Record<string, Record<string, OutcomeCounts>>;

/** One instance's counters since it started. */
export interface InstanceCounts {
  instance: string;
  /** Epoch milliseconds of the snapshot. */
  at: number;
  /** Version of the policy set the instance ran at the snapshot (absent from instances that predate it). */
  policyVersion?: number;
  counts: LockCounts;
}

/** Where each instance leaves its lock counters so `/admin/status` can sum them. */
export interface StatsStore {
  readonly kind: 'redis' | 'memory';
  publish(snapshot: InstanceCounts): Promise<void>;
  /** The write `publish` would make, for the instance heartbeat to carry (absent: the store cannot ride). */
  ride?(snapshot: InstanceCounts): HeartbeatRide;
  /** Snapshots of the instances that published within `maxAgeMs`. */
  collect(maxAgeMs: number): Promise<InstanceCounts[]>;
}

export const STATS_STORE = Symbol('StatsStore');
