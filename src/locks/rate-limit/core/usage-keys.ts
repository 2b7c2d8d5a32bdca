/** Usage periods (docs/quotas.md#usage-and-spend): buckets of one UTC hour and one UTC day. */
export const USAGE_PERIODS = ['hour', 'day'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** Length of one bucket of each period, in milliseconds. */
export const PERIOD_MS: Record<UsagePeriod, number> = { hour: 3_600_000, day: 86_400_000 };

/** How long a bucket is kept after it ends, in milliseconds: hours 8 days, days 400 days. */
export const RETENTION_MS: Record<UsagePeriod, number> = {
  hour: 8 * 86_400_000,
  day: 400 * 86_400_000,
};

/** Model fields one usage hash holds at most: past it, a new model counts as `other` (model names come from clients). */
export const MAX_USAGE_MODELS = 64;

/** The price of a model, in USD per 1 000 000 prompt and completion tokens. */
export interface TokenPrice {
  prompt: number;
  completion: number;
}

/** Spend of an answer in integer micro-dollars: USD per 1M tokens is exactly micro-dollars per token. */
export function spendMicros(prompt: number, completion: number, price?: TokenPrice): number {
  if (!price) return 0;
  const s = Math.round(prompt * price.prompt + completion * price.completion);
  return Number.isSafeInteger(s) && s > 0 ? s : 0;
}

/** Start of the bucket of `period` holding `ms` (epoch ms, UTC). */
export function bucketStart(period: UsagePeriod, ms: number): number {
  return Math.floor(ms / PERIOD_MS[period]) * PERIOD_MS[period];
}

/**
 * Key of one usage bucket: `rl:{<env>:<service>}:usage:<period>:<start, epoch s>:<app>` for the app's totals, with
 * `:<user>` (the keyed hash the limiter's keys carry) for one user's. `app` and `user` are key parts already
 * (escaped, hashed); the hash's fields are `<model>:p|c|s` (prompt, completion tokens, spend in micro-dollars).
 */
export function usageKey(
  tag: string,
  period: UsagePeriod,
  startMs: number,
  app: string,
  user?: string,
): string {
  const base = `rl:${tag}:usage:${period}:${startMs / 1000}:${app}`;
  return user === undefined ? base : `${base}:${user}`;
}

/** One write of a settlement's usage: a bucket key, the model field, the counts and the key's TTL (ms). */
export interface UsageWrite {
  key: string;
  /** Hash-tag group of the key (the service tag). */
  group: string;
  model: string;
  prompt: number;
  completion: number;
  spend: number;
  ttlMs: number;
}

/** One answer's usage, as the limiter records it: key parts only (no raw id). */
export interface UsageRecord {
  app: string;
  user?: string;
  model: string;
  prompt: number;
  completion: number;
  spend: number;
}

/** The writes of one answer's usage at `nowMs`: app and user totals, per hour and per day. */
export function usageWrites(tag: string, r: UsageRecord, nowMs: number): UsageWrite[] {
  const out: UsageWrite[] = [];
  for (const period of USAGE_PERIODS) {
    const start = bucketStart(period, nowMs);
    const ttlMs = Math.max(1, start + PERIOD_MS[period] + RETENTION_MS[period] - nowMs);
    const one = (user?: string): UsageWrite => ({
      key: usageKey(tag, period, start, r.app, user),
      group: tag,
      model: r.model,
      prompt: r.prompt,
      completion: r.completion,
      spend: r.spend,
      ttlMs,
    });
    out.push(one());
    if (r.user !== undefined) out.push(one(r.user));
  }
  return out;
}
