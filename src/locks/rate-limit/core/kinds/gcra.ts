import { EPS, type RuleKind, replyNumber } from '../rule-kind.types.js';

/**
 * GCRA: token-bucket semantics in one number per key, the theoretical arrival
 * time (TAT); tolerance τ = capacity × interval; exact retry-after for any cost.
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
  decide(b, v, { cap, T, limit }, now) {
    const tau = cap * T;
    const tat = Math.max((v as number | undefined) ?? now, now);
    const next = tat + b.cost * T;
    if (next - now <= tau + EPS) {
      const nextWait = Math.max(0, Math.floor((next - now + b.cost * T - tau) / 1000));
      return {
        o: {
          allowed: true,
          remaining: Math.floor((tau - (next - now)) / T + EPS),
          retryAfterMs: nextWait,
          resetMs: Math.ceil((next - now) / 1000),
          limit,
          charged: Math.floor(b.cost * T),
        },
        value: next,
      };
    }
    const retry = b.cost * T > tau + EPS ? Math.max(tat - now, 1e6) : next - tau - now;
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
