import type { RoutePolicy } from '../../config/policy.types.js';
import { isRecord } from '../../common/is-record.js';

/** The tier every app and user has unless told otherwise (multiplier 1). */
export const DEFAULT_TIER = 'free';

/**
 * The tiers the rate-limit lock knows in a policy set: `free` and every tier
 * some `rateLimit` slice gives a multiplier. The admin API refuses an app of
 * any other tier (it would silently be limited as 1×).
 */
export function knownTiers(policies: Record<string, RoutePolicy>): string[] {
  const tiers = new Set([DEFAULT_TIER]);
  for (const p of Object.values(policies)) {
    const t = (p.locks.rateLimit as { tiers?: unknown } | undefined)?.tiers;
    if (isRecord(t)) for (const name of Object.keys(t)) tiers.add(name);
  }
  return [...tiers].sort();
}

/** Injection token of the rate-limit lock's admin port (dynamic quotas: subjects and the load level). */
export const RATE_LIMIT_ADMIN = Symbol('RATE_LIMIT_ADMIN');

/** One rule's quota for a subject: as configured, and with the subject's risk multiplier applied. */
export interface EffectiveQuota {
  /** `<policy>.<rule>`. */
  rule: string;
  capacity: number;
  /** Tokens per second. */
  rate: number;
  effectiveCapacity: number;
  effectiveRate: number;
}

/** A subject's risk as the admin API shows it. No value in clear: the subject is its keyed hash. */
export interface SubjectRiskView {
  dimension: string;
  /** The app (of a user) or bot (of a Telegram user or chat) that names the subject; null: unscoped. */
  scope: string | null;
  /** The key part the id hashes to (what Redis keys and logs carry). */
  subject: string;
  /** False when the dimension carries no score (`rateLimit.risk.dimensions`) or scores are off. */
  scored: boolean;
  /** Current score (signals decayed, + new-subject weight, − reputation); tier bonuses apply per request. */
  score: number;
  multiplier: number;
  newSubject: boolean;
  /** Points of reputation earned (bounded by `reputation.max`). */
  reputation: number;
  firstSeen: string | null;
  signals: Record<string, { count: number; last: string }>;
  quotas: EffectiveQuota[];
}

/** Implemented by the rate-limit lock (RateLimitAdmin); the admin API audits resets. */
export interface RateLimitAdminPort {
  /** The load level, its source, and each policy's rank and action (see LoadMonitor.view). */
  load(): unknown;
  /**
   * `id` in clear (an app id, a user id, an IP address); hashed here as the limiter hashes it. `scope`: the app
   * of a user id, the bot of a Telegram user or chat id (`user` and `chat` only; without it, the unscoped id).
   */
  subject(dimension: string, id: string, scope?: string): Promise<SubjectRiskView>;
  /** Deletes the subject's record (it starts as a new subject); true when there was one. */
  resetSubject(dimension: string, id: string, scope?: string): Promise<boolean>;
}

/** Injection token of the rate-limit lock's usage port (docs/admin-api.md#usage). */
export const USAGE_ADMIN = Symbol('USAGE_ADMIN');

/** A usage query, validated by the admin API: apps, user and model in clear (hashed here as the keys hash them). */
export interface UsageQuery {
  period: 'hour' | 'day';
  /** Epoch ms: buckets starting at or after the bucket holding `fromMs`, and before `toMs`. */
  fromMs: number;
  toMs: number;
  apps: readonly string[];
  /** A user id of the one app in `apps`. */
  user?: string;
  model?: string;
  /** Most rows answered (the rest: `truncated`). */
  maxRows: number;
}

/** One row: one bucket of one app and model. `spendMicros`: micro-dollars (USD × 1 000 000). */
export interface UsageRow {
  start: string;
  app: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  spendMicros: number;
}

/** Implemented by the rate-limit lock (UsageAdmin). */
export interface UsageAdminPort {
  usage(q: UsageQuery): Promise<{ user: string | null; rows: UsageRow[]; truncated: boolean }>;
}
