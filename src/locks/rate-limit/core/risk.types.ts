/**
 * Risk score and reputation (docs/quotas.md): each scored subject has a score
 * kept under the rate-limit hash tag (`rl:{<env>:<service>}:risk:<dimension>:<hash>`),
 * raised by signals, decaying linearly, lowered by reputation (stable use over
 * days) and by its tier; the score maps to a quota multiplier in bands that the
 * decision script applies with the buckets (no extra round trip).
 */

/** What raises a score. `new_subject` is not recorded: the decision script derives it from the first-seen time. */
export const RISK_SIGNALS = [
  'new_subject',
  'bad_signature',
  'validation_failed',
  'not_found',
  'bloom_absent',
  'repeated_payload',
  'chat_spread',
] as const;
export type RiskSignal = (typeof RISK_SIGNALS)[number];

/** One band: scores below `below` get `multiplier` (the last band takes every higher score). */
export interface RiskBand {
  below: number;
  multiplier: number;
}

/** CONFIG_FILE `rateLimit.risk` after validation. */
export interface RiskSettings {
  enabled: boolean;
  /** Dimensions that carry a score (default app, user, ip; validated as rate-limit dimensions). */
  dimensions: string[];
  /** Milliseconds one point of score takes to decay (linear decay). */
  pointDecayMs: number;
  /** Highest score signals can push a subject to. */
  maxScore: number;
  /** Points each signal adds (`new_subject`: while the subject is younger than `newSubjectMs`). */
  weights: Record<RiskSignal, number>;
  /** A subject first seen less than this many milliseconds ago is new. */
  newSubjectMs: number;
  /** Reputation: `perDay` points off the score per whole day since first seen, at most `max`. */
  reputation: { perDay: number; max: number };
  /** Points off the score per tier (paid tiers and verified admins start higher). */
  tierBonus: Record<string, number>;
  /** Score → multiplier of the subject's quotas, ascending `below`. */
  bands: RiskBand[];
  /** Milliseconds a subject's record lives without being seen (refreshed at most hourly). */
  ttlMs: number;
  /**
   * Milliseconds an address (an `ip` record, or a user named by an unsigned header) keeps counting against a
   * verified subject after its last signal: within it, the address lowers that request's band by at most one;
   * after it, its decay tail does not count (docs/quotas.md#verified-subjects-behind-a-shared-address).
   */
  addressWindowMs: number;
  /** The same payload hash from one subject within this window is a `repeated_payload`. */
  payloadWindowMs: number;
  /** A subject in more than `chats` distinct chats within `windowMs` is a `chat_spread`. */
  chatSpread: { chats: number; windowMs: number };
  /**
   * Observations are queued and written in one script call per batch, at most this long
   * after the first one was queued (or sooner when MAX_BATCH are queued): a subject's score
   * rises within this delay. Default 5 s, so a bot at a normal pace (an update every 150 ms)
   * costs about 1.03 Redis calls per update, not 2.
   */
  flushMs: number;
}

/** The record of one subject as stored (times epoch µs; undefined = absent). */
export interface RiskState {
  /** Score "theoretical arrival time": score = max(0, s − now) ÷ point decay µs. */
  s?: number;
  /** First seen. */
  f?: number;
  /** Last TTL refresh. */
  t?: number;
  /** Last signal (any): an address counts against a verified subject only while this is recent. */
  r?: number;
}

/** What the decision script needs to turn risk records into one multiplier (DecideRequest.risk). */
export interface RiskParams {
  /** µs one point lives. */
  unitUs: number;
  newUs: number;
  newWeight: number;
  /** µs of one reputation period (a day). */
  repPeriodUs: number;
  repPer: number;
  repMax: number;
  /** Points off the worst score (tier bonus). */
  bonus: number;
  /** Milliseconds a record at least one reputation period old lives without being seen (`ttl`, 30 days). */
  ttlMs: number;
  /** Milliseconds a younger record lives without being seen (risk-params.ts `quietTtlMs`: hours, not days). */
  quietTtlMs: number;
  /** µs between TTL refreshes of a record. */
  touchUs: number;
  /** µs after its last signal that an unproven record still lowers a verified request (by one band at most). */
  addressUs: number;
  bands: RiskBand[];
}

/** One observation for the signal recorder (fire-and-forget, batched). */
export type RiskObservation =
  | { kind: 'signal'; key: string; signal: RiskSignal; count: number; points: number }
  /** A payload hash: a repeat within the window is a `repeated_payload`. */
  | { kind: 'payload'; key: string; marker: string }
  /** A chat the subject wrote in: past `chats` distinct ones within the window, a `chat_spread`. */
  | { kind: 'chat'; key: string; set: string; member: string };

/** The parameters the observe step needs (from RiskSettings). */
export interface ObserveParams {
  unitUs: number;
  maxScore: number;
  ttlMs: number;
  /** As RiskParams: the TTL of a record younger than one reputation period (`repPeriodUs`). */
  quietTtlMs: number;
  repPeriodUs: number;
  payloadWindowMs: number;
  chatLimit: number;
  chatWindowMs: number;
  payloadPoints: number;
  chatPoints: number;
}
