import type { LoadLevel, LoadSettings, LoadState } from '../../core/load.types.js';
import type { BucketKind } from '../../core/decision.types.js';

/** A global bucket whose fill counts towards the load level. */
export interface GlobalBucket {
  policy: string;
  key: string;
  kind: BucketKind;
  capacity: number;
  intervalUs: number;
}

/**
 * Where the load level is computed and shared: Redis (lua/ratelimit_load.lua:
 * every instance reads the same buckets and the same held level) or memory
 * (one instance). Both compute the same level from the same bucket states.
 */
export interface LoadStore {
  compute(
    levelKey: string,
    buckets: readonly GlobalBucket[],
    s: LoadSettings,
  ): Promise<Omit<LoadState, 'at'>>;
  /** The same computation as KEYS/ARGV of `ratelimit_load` and its reply's reading (Redis only). */
  request?(levelKey: string, buckets: readonly GlobalBucket[], s: LoadSettings): LoadRequest;
}

/** A load-level computation to be carried by another script call (the instance heartbeat). */
export interface LoadRequest {
  keys: string[];
  args: (string | number)[];
  parse(reply: unknown): Omit<LoadState, 'at'>;
}

export const LOAD_STORE = Symbol('LOAD_STORE');

export const LEVEL_CODES: Record<LoadLevel, number> = { normal: 0, soft: 1, hard: 2 };
export const LEVEL_OF: LoadLevel[] = ['normal', 'soft', 'hard'];
