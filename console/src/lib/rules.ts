/** Rate-limit rules as the console's editor holds them: the known fields as text, the rest kept as is. */
export interface RuleDraft {
  name: string;
  dimension: string;
  capacity: string;
  rate: string;
  mode: string;
  algorithm: string;
  cost: string;
  /** Fields the editor does not show (penalty, action, scope…), sent back unchanged. */
  rest: Record<string, unknown>;
}

export const DIMENSIONS = ['app', 'user', 'ip', 'route', 'command', 'chat', 'bot', 'global'];
export const EDITED = [
  'name',
  'dimension',
  'capacity',
  'rate',
  'mode',
  'algorithm',
  'cost',
] as const;

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

export function toDraft(rule: Record<string, unknown>): RuleDraft {
  const rest = { ...rule };
  for (const k of EDITED) delete rest[k];
  return {
    name: text(rule.name),
    dimension: text(rule.dimension),
    capacity: text(rule.capacity),
    rate: text(rule.rate),
    mode: text(rule.mode),
    algorithm: text(rule.algorithm),
    cost: text(rule.cost),
    rest,
  };
}

export function emptyDraft(): RuleDraft {
  return {
    name: '',
    dimension: 'ip',
    capacity: '',
    rate: '',
    mode: '',
    algorithm: '',
    cost: '',
    rest: {},
  };
}

/** A number when the text is one, else the text (the service then says what is wrong with it). */
const numberOrText = (s: string): number | string =>
  /^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s;

/** The rule as the admin API takes it: empty optional fields left out, `rate` a number when numeric. */
export function fromDraft(d: RuleDraft): Record<string, unknown> {
  const out: Record<string, unknown> = { ...d.rest, name: d.name.trim(), dimension: d.dimension };
  // A spend budget given in money (`budget: "$5"`) has no capacity unless one is typed (the service refuses both).
  if (d.capacity.trim() || d.rest.budget === undefined) out.capacity = numberOrText(d.capacity);
  // A concurrency or tokens rule has no rate (a rate rule without one is refused by the service, which says so).
  if (d.rate.trim()) out.rate = numberOrText(d.rate);
  if (d.mode) out.mode = d.mode;
  if (d.algorithm) out.algorithm = d.algorithm;
  if (d.cost.trim()) out.cost = numberOrText(d.cost);
  return out;
}

/** The field keys of a list of rules, for placing problems (`rules.0.capacity`, …, `rules`). */
export function ruleFieldKeys(count: number): string[] {
  const keys = ['rules', 'failMode'];
  for (let i = 0; i < count; i++) {
    keys.push(`rules.${i}`);
    for (const f of EDITED) keys.push(`rules.${i}.${f}`);
  }
  return keys;
}

/** Micro-dollars as dollars: `$5`, `$0.25`, `$0.000125`. */
export function dollars(micros: number): string {
  const whole = Math.floor(micros / 1_000_000);
  const frac = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return frac.length > 0 ? `$${whole}.${frac.length === 1 ? `${frac}0` : frac}` : `$${whole}`;
}

/**
 * A spend budget as people read it (`$5 per 1d`): its `budget`, or a `count: spend` rule's capacity in
 * micro-dollars; undefined for any other rule.
 */
export function budgetText(d: RuleDraft): string | undefined {
  const per =
    typeof d.rest.window === 'string' || typeof d.rest.window === 'number'
      ? ` per ${d.rest.window}`
      : '';
  if (typeof d.rest.budget === 'string') return `${d.rest.budget}${per}`;
  const micros = Number(d.capacity);
  if (d.rest.count !== 'spend' || !Number.isSafeInteger(micros) || micros < 1) return undefined;
  return `${dollars(micros)}${per}`;
}
