import type { RiskState } from '../core/risk.types.js';

/** One value of a decision script's reply. */
export type Reply = string | number | null | undefined;

/** A number from a script reply (nil = absent). */
export const num = (v: Reply): number | undefined =>
  v === null || v === undefined ? undefined : Number(v);

/** The s, f, t, r of a risk record at `out[o..o+3]` of a script reply (both decision scripts). */
export const riskStateAt = (out: readonly Reply[], o: number): RiskState => ({
  s: num(out[o]),
  f: num(out[o + 1]),
  t: num(out[o + 2]),
  r: num(out[o + 3]),
});
