/**
 * The service-wide degrade order (docs/quotas.md#degrade-order): one load
 * level for every instance, computed from the fill of the policies' global
 * buckets (or pinned by configuration), shared through Redis.
 */
export const LOAD_LEVELS = ['normal', 'soft', 'hard'] as const;
export type LoadLevel = (typeof LOAD_LEVELS)[number];

/**
 * What a policy does at the current level: `none`; `cache` (answers from the shield's caches, stale
 * allowed: `state.degraded`); `reduce` (quotas of its ranked rules × `softFactor`, plus `cache`);
 * `refuse` (503 `load_shed` with Retry-After); `exempt` (critical).
 */
export type LoadAction = 'none' | 'cache' | 'reduce' | 'refuse' | 'exempt';

/** CONFIG_FILE `rateLimit.load` after validation. */
export interface LoadSettings {
  /** Fill (0–1) of the fullest global bucket from which the level is `soft`. */
  soft: number;
  /** Fill from which the level is `hard`. */
  hard: number;
  /** Milliseconds between two computations of the level (every instance). */
  pollMs: number;
  /** Milliseconds a raised level is held after its pressure ended (shared, so instances do not flap). */
  holdMs: number;
  /** Multiplier of the quotas of rules ranked `reduceFrom` and up, at `soft`. */
  softFactor: number;
  /** degradeRank from which a policy's (or rule's) quotas are reduced at `soft`. */
  reduceFrom: number;
  /** degradeRank from which a policy answers from the shield's caches at `soft`. */
  cacheFrom: number;
  /** Retry-After seconds of the `load_shed` 503 at `hard`. */
  retryAfterS: number;
  /** The configured load rule: a level pinned by the operator (computed from pressure when absent). */
  pin?: LoadLevel;
}

/** The level as every instance sees it. */
export interface LoadState {
  level: LoadLevel;
  /** Fill of the fullest global bucket at the last computation (0–1). */
  fill: number;
  /** The policy whose global bucket is the fullest, when any is filled. */
  source?: string;
  /** `pressure`, `held` (raised level kept for holdMs) or `pinned`. */
  reason: 'pressure' | 'held' | 'pinned';
  /** Epoch ms of the computation. */
  at: number;
}

/** The action of a policy (rank, critical) at a level. */
export function loadAction(
  level: LoadLevel,
  rank: number,
  critical: boolean,
  s: Pick<LoadSettings, 'reduceFrom' | 'cacheFrom'>,
): LoadAction {
  if (level === 'normal') return 'none';
  if (critical) return 'exempt';
  if (level === 'hard') return 'refuse';
  if (rank >= s.reduceFrom) return 'reduce';
  return rank >= s.cacheFrom ? 'cache' : 'none';
}

/** The level of a fill. */
export function levelOf(fill: number, s: Pick<LoadSettings, 'soft' | 'hard'>): LoadLevel {
  return fill >= s.hard ? 'hard' : fill >= s.soft ? 'soft' : 'normal';
}
