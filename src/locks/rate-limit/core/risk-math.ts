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

/** The band multiplier of a score. */
export function bandOf(score: number, bands: readonly RiskBand[]): number {
  for (let i = 0; i < bands.length; i++)
    if (i === bands.length - 1 || score < bands[i]!.below) return bands[i]!.multiplier;
  return 1;
}

/** The request's multiplier: the band of its worst subject's score less the tier bonus. */
export function requestRisk(
  states: readonly (RiskState | undefined)[],
  now: number,
  p: RiskParams,
): { score: number; multiplier: number } {
  if (states.length === 0) return { score: 0, multiplier: 1 };
  let worst = -Infinity;
  for (const st of states) {
    const sc = riskScore(st, now, p);
    if (sc > worst) worst = sc;
  }
  const score = worst - p.bonus;
  return { score, multiplier: bandOf(score, p.bands) };
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
