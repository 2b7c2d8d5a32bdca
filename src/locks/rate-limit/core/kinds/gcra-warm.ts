import { type RuleKind, replyNumber } from '../rule-kind.types.js';
import { gcra } from './gcra.js';

/** Stored state: the GCRA TAT and the start of the current warm-up (µs), the hash fields `tat` and `ws`. */
type Warm = {
  tat: number;
  ws: number;
};

/** Sentinel's cold factor: a cold bucket starts at a third of its rate. */
export const COLD_FACTOR = 3;

/**
 * The interval factor of a warm-up bucket at `now` (1 = full rate), and the warm-up start it keeps. Cold (absent,
 * or full and idle for at least the warm-up `wu` µs): a warm-up starts now at COLD_FACTOR; the factor falls
 * linearly to 1 over `wu` µs from the start. lua/lib/kind_gcra_warm.lua computes it with the same operations.
 */
export function warmFactor(s: Warm | undefined, wu: number, now: number): [number, number] {
  const ws = s === undefined || now - s.tat >= wu ? now : s.ws;
  const e = Math.max(0, now - ws);
  return [e >= wu ? 1 : COLD_FACTOR - ((COLD_FACTOR - 1) * e) / wu, ws];
}

/**
 * GCRA with warm-up (a gcra rule's `warmUp`, BucketSpec.warmUpUs): the interval is scaled by warmFactor, so a
 * cold route admits at a third of its rate first and at the full rate `warmUp` later; the rest is GCRA (gcra.ts,
 * pacing included) on the stored TAT. A hash of `tat` and `ws`, whose TTL covers the warm-up period too: an absent
 * key has been idle that long. Compiled from `algorithm: gcra` with `warmUp` (no algorithm name of its own).
 * lua/lib/kind_gcra_warm.lua.
 */
export const gcraWarm = {
  code: 'w',
  fields: ['tat', 'ws'],
  scalesInterval: true,
  fromReply: ([tat, ws]) => {
    const n = replyNumber(tat);
    return n === undefined ? undefined : { tat: n, ws: Number(ws) };
  },
  used: (b, v, now) =>
    v === undefined ? 0 : Math.max(0, (v as Warm).tat - now) / (b.capacity * b.intervalUs),
  // At the cold factor the TAT may run COLD_FACTOR times as far ahead; idle for the warm-up on top.
  refillUs: (b) => COLD_FACTOR * b.capacity * b.intervalUs + (b.warmUpUs ?? 0),
  paces: true,
  decide(b, v, s, now) {
    const w = v as Warm | undefined;
    const [f, ws] = warmFactor(w, b.warmUpUs ?? 0, now);
    const r = gcra.decide(b, w?.tat, { ...s, T: s.T * f }, now);
    return r.value === undefined ? r : { o: r.o, value: { tat: r.value as number, ws } };
  },
} as const satisfies RuleKind;
