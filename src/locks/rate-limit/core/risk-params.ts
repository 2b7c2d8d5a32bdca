import type { ObserveParams } from './risk.types.js';
import type { RiskParams, RiskSettings } from './risk.types.js';

const DAY_US = 86_400e6;
const TOUCH_US = 3_600e6;

/**
 * The TTL of a record younger than one reputation period (a day), in milliseconds: two touch intervals (an
 * active subject is seen again, and its TTL refreshed, before it lapses), and at least as long as anything the
 * record still says: the new-subject window, a full score's decay (`maxScore` points), the address window. A
 * quiet young record (a made-up subject seen once) then goes after about two hours, not after `ttl` (30 days):
 * what it held is worth nothing by then (its score is 0, and a subject seen again is new again, the cautious
 * side). Only a record older than a day (reputation earned) lives `ttl`. Never longer than `ttl`.
 */
export function quietTtlMs(s: RiskSettings): number {
  const touchMs = TOUCH_US / 1000;
  const longest = Math.max(
    2 * touchMs,
    s.newSubjectMs,
    s.maxScore * s.pointDecayMs,
    s.addressWindowMs,
  );
  return Math.min(s.ttlMs, Math.ceil(longest));
}

/** The decision script's risk parameters for a request of `tier` (its bonus lowers the score). */
export function riskParams(s: RiskSettings, tier: string | undefined): RiskParams {
  return {
    unitUs: s.pointDecayMs * 1000,
    newUs: s.newSubjectMs * 1000,
    newWeight: s.weights.new_subject,
    repPeriodUs: DAY_US,
    repPer: s.reputation.perDay,
    repMax: s.reputation.max,
    bonus: tier === undefined ? 0 : (s.tierBonus[tier] ?? 0),
    ttlMs: s.ttlMs,
    quietTtlMs: quietTtlMs(s),
    touchUs: TOUCH_US,
    addressUs: s.addressWindowMs * 1000,
    bands: s.bands,
  };
}

/** The observe script's parameters. */
export function observeParams(s: RiskSettings): ObserveParams {
  return {
    unitUs: s.pointDecayMs * 1000,
    maxScore: s.maxScore,
    ttlMs: s.ttlMs,
    quietTtlMs: quietTtlMs(s),
    repPeriodUs: DAY_US,
    payloadWindowMs: s.payloadWindowMs,
    chatLimit: s.chatSpread.chats,
    chatWindowMs: s.chatSpread.windowMs,
    payloadPoints: s.weights.repeated_payload,
    chatPoints: s.weights.chat_spread,
  };
}

/** Key of a subject's risk record: `rl:{<env>:<service>}:risk:<dimension>:<subject part>` (same slot as its buckets). */
export function riskKey(tag: string, dimension: string, part: string): string {
  return `rl:${tag}:risk:${dimension}:${part}`;
}
