/**
 * The score and band arithmetic, in the same operations and order as the risk
 * part of lua/ratelimit_decide.lua (and lua/ratelimit_risk_observe.lua for
 * signals), so the memory store and the Redis store give the same numbers.
 */
import type { RiskBand, RiskParams, RiskState } from './risk.types.js';

/** A subject's score at `now` µs (negative = reputation beyond its risk). */
export function riskScore(st: RiskState | undefined, now: number, p: RiskParams): number {
  const s = st?.s;
  const f = st?.f;
  let score = s !== undefined ? Math.max(0, s - now) / p.unitUs : 0;
  if (f === undefined || now - f < p.newUs) score = score + p.newWeight;
  if (f !== undefined)
    score = score - Math.min(p.repMax, Math.floor((now - f) / p.repPeriodUs) * p.repPer);
  return score;
}

/** The index of a score's band (0-based; the last band takes every higher score). */
export function bandIndex(score: number, bands: readonly RiskBand[]): number {
  for (let i = 0; i < bands.length - 1; i++) if (score < bands[i]!.below) return i;
  return bands.length - 1;
}

/** The band multiplier of a score. */
export function bandOf(score: number, bands: readonly RiskBand[]): number {
  return bands[bandIndex(score, bands)]?.multiplier ?? 1;
}

/** True when an unproven record (an address) had a signal within `addressUs` of `now`: it is misbehaving now. */
export function recentlySignalled(st: RiskState | undefined, now: number, p: RiskParams): boolean {
  return st?.r !== undefined && now - st.r < p.addressUs;
}

/**
 * The request's multiplier (docs/quotas.md#verified-subjects-behind-a-shared-address). With no verified
 * subject (`verified` = 0): the band of the worst score of all its records. With verified subjects (the
 * first `verified` states): the band of their worst score, lowered by one band at most by the worst
 * unproven record (the address) that had a signal within `addressUs`; an address quiet for longer, or
 * only decaying, does not count. Scores less the tier bonus. `score` is the score the band is taken from.
 */
export function requestRisk(
  states: readonly (RiskState | undefined)[],
  now: number,
  p: RiskParams,
  verified = 0,
): { score: number; multiplier: number } {
  if (states.length === 0) return { score: 0, multiplier: 1 };
  let worst = -Infinity;
  let address = -Infinity;
  for (let j = 0; j < states.length; j++) {
    const st = states[j];
    if (verified === 0 || j < verified) worst = Math.max(worst, riskScore(st, now, p));
    else if (recentlySignalled(st, now, p)) address = Math.max(address, riskScore(st, now, p));
  }
  const score = worst - p.bonus;
  let band = bandIndex(score, p.bands);
  if (address !== -Infinity)
    band = Math.max(band, Math.min(bandIndex(address - p.bonus, p.bands), band + 1));
  return { score, multiplier: p.bands[band]?.multiplier ?? 1 };
}

/** Adds `points` to a score TAT, never past `maxScore` points from now (as the observe script does). */
export function addPoints(
  s: number | undefined,
  now: number,
  points: number,
  unitUs: number,
  maxScore: number,
): number {
  return Math.min(Math.max(s ?? now, now) + points * unitUs, now + maxScore * unitUs);
}

/**
 * Milliseconds a record lives from now (as lib/risk.lua `risk_ttl` and the observe script): `ttlMs` once it is
 * one reputation period old (first seen `f` µs), else `quietTtlMs`; a new record (`f` undefined) is young.
 */
export function recordTtlMs(
  f: number | undefined,
  now: number,
  p: Pick<RiskParams, 'ttlMs' | 'quietTtlMs' | 'repPeriodUs'>,
): number {
  return f !== undefined && now - f >= p.repPeriodUs ? p.ttlMs : p.quietTtlMs;
}

/** The record to write after a decision saw it (first sight, or a due TTL refresh), or undefined. */
export function touched(
  st: RiskState | undefined,
  now: number,
  p: RiskParams,
): RiskState | undefined {
  if (st?.f === undefined) return { ...st, f: now, t: now };
  if (now - (st.t ?? 0) >= p.touchUs) return { ...st, t: now };
  return undefined;
}
