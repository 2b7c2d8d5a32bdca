import { EPS, type RuleKind, replyNumber } from '../rule-kind.types.js';

/** Stored state: the count of the window and when it ends (µs), the hash fields `c` and `e`. */
type Window = {
  count: number;
  expiresAtUs: number;
};

/** The live window of a stored state (undefined when absent or over). */
const live = (v: unknown, now: number): Window | undefined => {
  const w = v as Window | undefined;
  return w && w.expiresAtUs > now ? w : undefined;
};

/**
 * A fixed window (the emergency fuse, not a policy algorithm): a count that
 * expires with its window; multipliers scale the count only. lua/lib/kind_fixed_window.lua.
 */
export const fixedWindow = {
  code: 'f',
  fields: ['c', 'e'],
  scalesInterval: false,
  fromReply: ([c, e]) => {
    const n = replyNumber(c);
    return n === undefined ? undefined : { count: n, expiresAtUs: Number(e) };
  },
  used: (b, v, now) => (live(v, now)?.count ?? 0) / b.capacity,
  refillUs: (b) => b.intervalUs,
  decide(b, v, { cap, limit }, now) {
    const s = live(v, now);
    const count = s?.count ?? 0;
    const expiresAt = s?.expiresAtUs ?? now + b.intervalUs;
    const left = Math.max(0, Math.ceil((expiresAt - now) / 1000));
    if (count + b.cost <= cap + EPS) {
      return {
        o: {
          allowed: true,
          remaining: Math.floor(cap - count - b.cost + EPS),
          retryAfterMs: count + 2 * b.cost > cap + EPS ? left : 0,
          resetMs: left,
          limit,
          charged: b.cost,
        },
        value: { count: count + b.cost, expiresAtUs: expiresAt },
      };
    }
    return {
      o: {
        allowed: false,
        remaining: Math.max(0, Math.floor(cap - count + EPS)),
        retryAfterMs: Math.max(1, left),
        resetMs: left,
        limit,
        charged: 0,
      },
    };
  },
} as const satisfies RuleKind;
