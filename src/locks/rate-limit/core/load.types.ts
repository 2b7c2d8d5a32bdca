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
  /** This instance's event-loop delay p99 (ms) over one poll: off when absent. */
  eventLoopDelay?: HealthThreshold;
  /** This instance's p99 latency (ms) of admitted requests over one poll: off when absent. */
  admittedP99?: HealthThreshold;
  /**
   * Classes of requests shed at the front door first, from `soft`, while this instance's own health raised its
   * level (docs/quotas.md#shed-first): `suspect` (an address this instance answered 401 lately), `anonymous`
   * (no signature headers). Empty: none.
   */
  shedFirst: ShedClass[];
}

/** A class of requests the front door sheds first under own-health pressure. */
export const SHED_CLASSES = ['suspect', 'anonymous'] as const;
export type ShedClass = (typeof SHED_CLASSES)[number];

/** Milliseconds from which an instance's own health input raises its local level. */
export interface HealthThreshold {
  softMs: number;
  hardMs: number;
}

/** This instance's own health over the last poll window (undefined: not measured). */
export interface HealthSample {
  /** p99 of the event-loop delay, ms. */
  eventLoopMs?: number;
  /** p99 latency of requests the rate-limit lock admitted, ms (undefined when none finished). */
  admittedMs?: number;
}

/** Why the level is what it is: bucket fill, a held or pinned level, or the instance's own health. */
export type LoadReason = 'pressure' | 'held' | 'pinned' | 'event_loop' | 'latency';

/** The level an instance's own health asks for, and the input that asks for the most. */
export function healthLevelOf(
  h: HealthSample,
  s: Pick<LoadSettings, 'eventLoopDelay' | 'admittedP99'>,
): { level: LoadLevel; reason?: 'event_loop' | 'latency' } {
  const of = (v: number | undefined, t: HealthThreshold | undefined): LoadLevel =>
    v === undefined || !t ? 'normal' : v >= t.hardMs ? 'hard' : v >= t.softMs ? 'soft' : 'normal';
  const loop = of(h.eventLoopMs, s.eventLoopDelay);
  const lat = of(h.admittedMs, s.admittedP99);
  const rank = (l: LoadLevel): number => LOAD_LEVELS.indexOf(l);
  if (rank(loop) === 0 && rank(lat) === 0) return { level: 'normal' };
  return rank(loop) >= rank(lat)
    ? { level: loop, reason: 'event_loop' }
    : { level: lat, reason: 'latency' };
}

/** The level as every instance sees it. */
export interface LoadState {
  level: LoadLevel;
  /** Fill of the fullest global bucket at the last computation (0–1). */
  fill: number;
  /** The policy whose global bucket is the fullest, when any is filled. */
  source?: string;
  /**
   * `pressure`, `held` (raised level kept for holdMs), `pinned`, or this instance's own health:
   * `event_loop` / `latency` (local only: never written to the shared level).
   */
  reason: LoadReason;
  /** This instance's health inputs at the last computation (those configured). */
  health?: HealthSample;
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
