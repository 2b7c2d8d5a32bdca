/** Largest spend budget, in USD: 10^9 micro-dollars, a rule's MAX_CAPACITY. */
export const MAX_BUDGET_USD = 1_000;

const DOLLARS = /^\s*(?:\$\s*(\d{1,7}(?:\.\d{1,6})?)|(\d{1,7}(?:\.\d{1,6})?)\s*(?:USD|usd))\s*$/;

/**
 * A spend budget in integer micro-dollars, from `"$5"`, `"$0.25"`, `"5 USD"` or `"5usd"` (at most 6 decimals:
 * micro-dollars are the unit); undefined when it is no such amount, is 0, or exceeds MAX_BUDGET_USD.
 */
export function parseBudget(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = DOLLARS.exec(v);
  if (!m) return undefined;
  const [whole, frac = ''] = (m[1] ?? m[2]!).split('.');
  const micros = Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
  return micros >= 1 && micros <= MAX_BUDGET_USD * 1_000_000 ? micros : undefined;
}

/** Micro-dollars as a readable amount: `$5`, `$0.25`, `$0.000125`. */
export function formatMicros(micros: number): string {
  const whole = Math.floor(micros / 1_000_000);
  const frac = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return frac.length > 0 ? `$${whole}.${frac.length === 1 ? `${frac}0` : frac}` : `$${whole}`;
}

/** The capacity of a rule: `capacity`, or for a spend budget given as `budget`, its micro-dollars. */
export function capacityOf(r: { capacity?: number; budget?: string }): number {
  return r.budget !== undefined ? (parseBudget(r.budget) ?? 0) : (r.capacity ?? 0);
}
