import { MAX_BUDGET_USD, parseBudget } from '../money.js';
import { parseDuration } from '../rate-parse.js';
import { EPS, type RuleKind, replyNumber } from '../rule-kind.types.js';
import { type CountWindow, liveWindow, windowRefusal } from './count-window.js';

/**
 * What of an answer a tokens rule counts (docs/rate-limit.md#token-rules): its tokens, or `spend`, its price in
 * integer micro-dollars (`capacity` then is micro-dollars per window: a spend budget, docs/quotas.md#spend-budgets).
 */
export const TOKEN_COUNTS = ['prompt', 'completion', 'total', 'spend'] as const;
export type TokenCount = (typeof TOKEN_COUNTS)[number];

/** Shortest and longest window of a tokens rule. */
export const MIN_TOKEN_WINDOW_MS = 1_000;
export const MAX_TOKEN_WINDOW_MS = 31 * 86_400_000;

/**
 * End of the window holding `now` (µs): windows are aligned to the epoch (a `1d` window ends at 00:00 UTC), so
 * every instance and the settlement agree on which window a reservation went to.
 */
export function windowEndUs(now: number, windowUs: number): number {
  return Math.floor(now / windowUs) * windowUs + windowUs;
}

/**
 * Token budgets (`algorithm: tokens`): at most `capacity` tokens per aligned window. A request reserves its worst
 * case (prompt count + `max_tokens`) in the decision, all or nothing with the other rules; when its answer ends
 * the lock settles the reservation to what the upstream reported (`RateLimitStore.settle`), in the same window
 * only. Reservations are never answered from the deny cache (a settlement gives tokens back at any moment).
 * Multipliers scale the count only. lua/lib/kind_tokens.lua.
 */
export const tokens = {
  code: 'k',
  algorithm: 'tokens',
  fields: ['c', 'e'],
  scalesInterval: false,
  reconciled: true,
  options: ['window', 'count', 'perModel', 'budget'],
  fromReply: ([c, e]) => {
    const n = replyNumber(c);
    return n === undefined ? undefined : { count: n, expiresAtUs: Number(e) };
  },
  used: (b, v, now) => (liveWindow(v, now)?.count ?? 0) / b.capacity,
  refillUs: (b) => b.intervalUs,
  decide(b, v, { cap, limit }, now) {
    const s = liveWindow(v, now);
    const count = s?.count ?? 0;
    const end = s?.expiresAtUs ?? windowEndUs(now, b.intervalUs);
    const left = Math.max(0, Math.ceil((end - now) / 1000));
    if (count + b.cost <= cap + EPS) {
      return {
        o: {
          allowed: true,
          remaining: Math.floor(cap - count - b.cost + EPS),
          retryAfterMs: 0,
          resetMs: left,
          limit,
          charged: b.cost,
          untilUs: end,
        },
        value: { count: count + b.cost, expiresAtUs: end },
      };
    }
    return { o: windowRefusal(cap, count, left, limit) };
  },
  validate(rule, path) {
    const p: string[] = [];
    const ms = parseDuration(rule.window);
    if (ms === undefined || ms < MIN_TOKEN_WINDOW_MS || ms > MAX_TOKEN_WINDOW_MS || ms % 1000 !== 0)
      p.push(
        `${path}.window: must be whole seconds from 1s to 31d, such as "1m" or "1d" (the budget's window)`,
      );
    if (rule.count !== undefined && !TOKEN_COUNTS.includes(rule.count as TokenCount))
      p.push(
        `${path}.count: must be one of ${TOKEN_COUNTS.join(', ')} (which tokens the budget counts, or spend in micro-dollars)`,
      );
    p.push(...validateBudget(rule, path));
    if (rule.perModel !== undefined && typeof rule.perModel !== 'boolean')
      p.push(`${path}.perModel: must be true or false (one budget per model name)`);
    if (rule.rate !== undefined)
      p.push(`${path}.rate: a tokens rule has no rate (capacity per window)`);
    if (rule.cost !== undefined)
      p.push(`${path}.cost: a tokens rule is charged by the tokens of the request`);
    if (rule.penalty !== undefined) p.push(`${path}.penalty: a tokens rule has no penalty`);
    return p;
  },
} as const satisfies RuleKind;

/** `budget` (a spend budget in money, docs/quotas.md#spend-budgets): `"$5"`, with `count: spend` or none. */
function validateBudget(rule: Record<string, unknown>, path: string): string[] {
  if (rule.budget === undefined) return [];
  const p: string[] = [];
  if (parseBudget(rule.budget) === undefined)
    p.push(
      `${path}.budget: must be an amount in US dollars from $0.000001 to $${MAX_BUDGET_USD}, such as "$5", "$0.25" or "5 USD"`,
    );
  if (rule.count !== undefined && rule.count !== 'spend')
    p.push(`${path}.budget: a budget counts spend (count must be spend or left out)`);
  if (rule.capacity !== undefined)
    p.push(`${path}.capacity: give capacity (micro-dollars) or budget, not both`);
  return p;
}

/** A tokens window after its settlement: `reserved` given back, `used` charged (never below 0); memory store. */
export function settledWindow(
  v: unknown,
  untilUs: number,
  reserved: number,
  used: number,
): CountWindow | undefined {
  const w = v as CountWindow | undefined;
  if (!w || w.expiresAtUs !== untilUs) return undefined;
  return { count: Math.max(0, w.count - reserved + used), expiresAtUs: w.expiresAtUs };
}
