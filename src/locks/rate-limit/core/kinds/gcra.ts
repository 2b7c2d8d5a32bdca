import type { BucketOutcome } from '../decision.types.js';
import { EPS, type RuleKind, replyNumber } from '../rule-kind.types.js';

/**
 * GCRA: token-bucket semantics in one number per key, the theoretical arrival
 * time (TAT); tolerance τ = capacity × interval; exact retry-after for any cost.
 * Paced (`maxWaitMs`): tolerance τ + wait, and the request waits until its TAT less τ.
 * lua/lib/kind_gcra.lua; the fast path (lua/lib/fast_path.lua) and the batch
 * script inline the same steps.
 */
export const gcra = {
  code: 'g',
  algorithm: 'gcra',
  fields: [],
  scalesInterval: true,
  fromReply: ([v]) => replyNumber(v),
  used: (b, v, now) =>
    v === undefined ? 0 : Math.max(0, (v as number) - now) / (b.capacity * b.intervalUs),
  refillUs: (b) => b.capacity * b.intervalUs,
  paces: true,
  decide(b, v, { cap, T, limit }, now) {
    const tau = cap * T;
    // Paced: a request that fits within the wait w is admitted now, its slot reserved (the TAT moves on).
    const w = b.maxWaitUs ?? 0;
    const tat = Math.max((v as number | undefined) ?? now, now);
    const next = tat + b.cost * T;
    if (next - now <= tau + w + EPS) {
      const nextWait = Math.max(0, Math.floor((next - now + b.cost * T - tau - w) / 1000));
      const o: BucketOutcome = {
        allowed: true,
        remaining: Math.max(0, Math.floor((tau - (next - now)) / T + EPS)),
        retryAfterMs: nextWait,
        resetMs: Math.ceil((next - now) / 1000),
        limit,
        charged: Math.floor(b.cost * T),
      };
      if (w > 0) o.waitMs = Math.max(0, Math.ceil((next - now - tau - EPS) / 1000));
      return { o, value: next };
    }
    const retry = b.cost * T > tau + w + EPS ? Math.max(tat - now, 1e6) : next - tau - w - now;
    return {
      o: {
        allowed: false,
        remaining: Math.max(0, Math.floor((tau - (tat - now)) / T + EPS)),
        retryAfterMs: Math.ceil(retry / 1000),
        resetMs: Math.ceil((tat - now) / 1000),
        limit,
        charged: 0,
      },
    };
  },
} as const satisfies RuleKind;
