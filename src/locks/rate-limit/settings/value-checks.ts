/** The value checks every rate-limit validator shares. */

export const posInt = (v: unknown): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1;
export const fraction = (v: unknown, max: number, inclusive: boolean): boolean =>
  typeof v === 'number' && v > 0 && (inclusive ? v <= max : v < max);

export function oneOf(v: unknown, allowed: readonly string[]): boolean {
  return typeof v === 'string' && allowed.includes(v);
}
