import { ADAPTIVE_DEFAULTS } from '../circuit-breaker.defaults.js';
import type { AdaptiveOptions } from './adaptive.types.js';

/** One option's check: a problem, or undefined when valid. */
export type Check = (v: unknown) => string | undefined;

export const int =
  (min: number, max: number, unit = ''): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? undefined
      : `must be a whole number from ${min} to ${max}${unit}`;

const fraction =
  (min: number, max: number, what: string): Check =>
  (v) =>
    typeof v === 'number' && v > min && v <= max
      ? undefined
      : `must be a number above ${min}, at most ${max} (${what})`;

const CHECKS: Record<keyof AdaptiveOptions, Check> = {
  minLimit: int(1, 1_000_000),
  maxLimit: int(1, 1_000_000),
  initialLimit: int(1, 1_000_000),
  windowMs: int(10, 60_000, ' (milliseconds)'),
  windowSamples: int(1, 10_000),
  minRttWindowMs: int(1_000, 3_600_000, ' (milliseconds)'),
  tolerance: (v) =>
    typeof v === 'number' && v >= 0 && v <= 4 ? undefined : 'must be a fraction from 0 to 4',
  smoothing: fraction(0, 1, 'weight of a new limit'),
};

/** The `adaptive` option: false, or an object of AdaptiveOptions (any left out take ADAPTIVE_DEFAULTS). */
export function checkAdaptive(v: unknown): string | undefined {
  if (v === false) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return 'must be false or an object of adaptive limit options, e.g. { minLimit: 2, maxLimit: 64 }';
  const o = v as Record<string, unknown>;
  const problems: string[] = [];
  for (const [k, value] of Object.entries(o)) {
    const check = CHECKS[k as keyof AdaptiveOptions] as Check | undefined;
    if (!check) {
      problems.push(`${k}: unknown option (known: ${Object.keys(CHECKS).join(', ')})`);
      continue;
    }
    const p = check(value);
    if (p) problems.push(`${k}: ${p}`);
  }
  if (problems.length === 0) {
    const min = (o.minLimit as number | undefined) ?? ADAPTIVE_DEFAULTS.minLimit;
    if (o.maxLimit !== undefined && (o.maxLimit as number) < min)
      problems.push('maxLimit: must be at least minLimit');
    if (o.initialLimit !== undefined && (o.initialLimit as number) < min)
      problems.push('initialLimit: must be at least minLimit');
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** The adaptive options in force for a backend, or undefined when off; maxLimit never above `capacity`. */
export function adaptiveOptions(
  setting: false | Partial<AdaptiveOptions>,
  capacity: number,
): AdaptiveOptions | undefined {
  if (setting === false) return undefined;
  const maxLimit = Math.min(setting.maxLimit ?? capacity, capacity);
  const minLimit = Math.min(setting.minLimit ?? ADAPTIVE_DEFAULTS.minLimit, maxLimit);
  return {
    ...ADAPTIVE_DEFAULTS,
    ...setting,
    minLimit,
    maxLimit,
    initialLimit: setting.initialLimit ?? Math.min(ADAPTIVE_DEFAULTS.initialLimit, maxLimit),
  };
}
