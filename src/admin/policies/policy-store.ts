import type { RoutePolicy } from '../../config/policy.types.js';

/** Who made a version, when and why (no policy content): one row of the version history. */
export interface PolicyVersionMeta {
  version: number;
  /** ISO time of the change. */
  at: string;
  /** Token id of the admin who made it (`system` for the set in force before the first change). */
  actor: string;
  /** One line for humans, e.g. `search: rateLimit → shadow until 2030-01-01T00:00:00Z`. */
  summary: string;
}

/** One stored version of the whole policy set. */
export interface PolicyVersion extends PolicyVersionMeta {
  policies: Record<string, RoutePolicy>;
}

export type CommitResult = { ok: true; version: number } | { ok: false; active: number };

/**
 * The versioned policy sets shared by every instance. A change never
 * rewrites history: it becomes version `active + 1` and the active one.
 * Only the newest `historyLimit` versions are kept.
 */
export interface PolicyStore {
  /** `redis` (shared by every instance) or `memory` (this instance only). */
  readonly kind: 'redis' | 'memory';
  /** Number of the active version; 0 when nothing was ever stored. */
  activeVersion(): Promise<number>;
  /** One version with its content; undefined when unknown or pruned. */
  get(version: number): Promise<PolicyVersion | undefined>;
  /** Newest first, at most `limit`. */
  list(limit: number): Promise<PolicyVersionMeta[]>;
  /**
   * Stores `entry` as version `expected + 1` and makes it active, atomically,
   * and announces it — only if the active version is still `expected`
   * (optimistic concurrency: otherwise nothing changes and the active version is returned).
   */
  commit(expected: number, entry: Omit<PolicyVersion, 'version'>): Promise<CommitResult>;
  /**
   * Calls `listener(version)` when a version becomes active (announcements may
   * be lost: poll too). Resolves with unsubscribe once announcements flow.
   */
  watch(listener: (version: number) => void): Promise<() => void>;
}

export const POLICY_STORE = Symbol('PolicyStore');
