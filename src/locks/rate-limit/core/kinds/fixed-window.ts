import { EPS, type RuleKind, replyNumber } from '../rule-kind.types.js';
import { liveWindow, windowRefusal } from './count-window.js';

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
  used: (b, v, now) => (liveWindow(v, now)?.count ?? 0) / b.capacity,
  refillUs: (b) => b.intervalUs,
  decide(b, v, { cap, limit }, now) {
    const s = liveWindow(v, now);
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
    return { o: windowRefusal(cap, count, left, limit) };
  },
} as const satisfies RuleKind;
