import { EPS } from '../rule-kind.types.js';

/** Stored state of a counting window (fixed-window and tokens kinds): the count and when it ends (µs), hash fields `c`, `e`. */
export type CountWindow = { count: number; expiresAtUs: number };

/** The live window of a stored state (undefined when absent or over). */
export const liveWindow = (v: unknown, now: number): CountWindow | undefined => {
  const w = v as CountWindow | undefined;
  return w && w.expiresAtUs > now ? w : undefined;
};

/** The outcome of a refused request on a counting window: nothing charged, retry when the window ends. */
export function windowRefusal(cap: number, count: number, leftMs: number, limit: number) {
  return {
    allowed: false,
    remaining: Math.max(0, Math.floor(cap - count + EPS)),
    retryAfterMs: Math.max(1, leftMs),
    resetMs: leftMs,
    limit,
    charged: 0,
  };
}
