/**
 * Axis ticks for the console's small charts (uPlot `splits` and `values`):
 * a y axis that always shows 0 and a round maximum above the data (so a
 * spike can be read), and a time axis on whole seconds with one label per
 * tick (no second line with the date, no `:14.500` on a young series).
 */

/** The smallest "round" number (1, 2, 2.5 or 5 × 10^k) at or above `v`; 1 for nothing to show. */
export function niceCeil(v: number): number {
  if (!Number.isFinite(v) || v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v * (1 - 1e-9)) return m * p;
  return 10 * p;
}

/** The y range [0, round max] for data whose largest value is `max`. */
export function yRange(max: number | null | undefined): [number, number] {
  return [0, niceCeil(max ?? 0)];
}

/** The y ticks: 0, the middle and the top of the range (three labels, never a lone "0"). */
export function ySplits(top: number): number[] {
  return [0, top / 2, top];
}

/** A tick value with as many decimals as the range needs (0.05 stays 0.05, 1200 is 1.2k). */
export function yLabel(v: number, top: number): string {
  if (v === 0) return '0';
  if (top >= 10_000) return `${+(v / 1000).toFixed(1)}k`;
  const decimals = top >= 10 ? 0 : Math.max(0, Math.ceil(-Math.log10(top)) + 2);
  return String(+v.toFixed(decimals));
}

/** Whole-second steps a time axis may use, in seconds. */
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/** The smallest whole-second step (seconds) that puts at most `count` ticks in [min, max] (Unix seconds). */
export function timeStep(min: number, max: number, count: number): number {
  const span = Math.max(0, max - min);
  return STEPS.find((s) => span / s <= Math.max(1, count - 1)) ?? STEPS[STEPS.length - 1]!;
}

/** Ticks on whole multiples of the step inside [min, max] (Unix seconds); always whole seconds. */
export function timeSplits(min: number, max: number, count: number): number[] {
  const step = timeStep(min, max, count);
  const out: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) out.push(t);
  return out;
}

const two = (n: number) => String(n).padStart(2, '0');

/** One label for a tick or a read-out: local `HH:MM`, with `:SS` when the step is under a minute. */
export function timeLabel(t: number, stepSeconds = 1): string {
  const d = new Date(Math.round(t) * 1000);
  const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  return stepSeconds < 60 ? `${hm}:${two(d.getSeconds())}` : hm;
}
