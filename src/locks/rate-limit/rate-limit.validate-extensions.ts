import { isRecord } from '../../common/is-record.js';
import { ON_LIMIT } from './core/rate-limit-slice.types.js';

/** What the products registered that a slice may name (RateLimitExtensions). */
export interface RegisteredNames {
  costs: readonly string[];
  attributes: readonly string[];
  claims: readonly string[];
  /** Token counters a slice's `tokens` may name (needed by `algorithm: tokens` rules). */
  tokens?: readonly string[];
}

export const NO_NAMES: RegisteredNames = { costs: [], attributes: [], claims: [], tokens: [] };

const MAX_VALUES = 64;

/** Problems with a rule's `when` / `unless` (empty = valid): known attribute names, lists of strings. */
export function validateConditions(
  rule: Record<string, unknown>,
  path: string,
  attributes: readonly string[],
): string[] {
  const p: string[] = [];
  for (const which of ['when', 'unless'] as const) {
    const c = rule[which];
    if (c === undefined) continue;
    if (!isRecord(c) || Object.keys(c).length === 0) {
      p.push(
        `${path}.${which}: must map attribute names to lists of values, e.g. {chatType: [group]}`,
      );
      continue;
    }
    for (const [name, values] of Object.entries(c)) {
      if (!attributes.includes(name))
        p.push(
          attributes.length > 0
            ? `${path}.${which}.${name}: unknown attribute (known: ${attributes.join(', ')})`
            : `${path}.${which}.${name}: unknown attribute (no attribute is registered)`,
        );
      if (
        !Array.isArray(values) ||
        values.length === 0 ||
        values.length > MAX_VALUES ||
        !values.every((v) => typeof v === 'string' && v.length <= 256)
      )
        p.push(`${path}.${which}.${name}: must be a list of 1-${MAX_VALUES} strings`);
    }
  }
  return p;
}

/** Problems with a slice's `claim`, `onLimit` and `tokens` (empty = valid). */
export function validateSliceExtras(
  slice: Record<string, unknown>,
  path: string,
  claims: readonly string[],
  tokens: readonly string[] = [],
): string[] {
  const p: string[] = [];
  if (
    slice.tokens !== undefined &&
    !(typeof slice.tokens === 'string' && tokens.includes(slice.tokens))
  )
    p.push(
      tokens.length > 0
        ? `${path}.tokens: must be one of ${tokens.join(', ')}`
        : `${path}.tokens: unknown token counter (none is registered)`,
    );
  const rules = Array.isArray(slice.rules) ? (slice.rules as unknown[]) : [];
  if (slice.tokens === undefined && rules.some((r) => isRecord(r) && r.algorithm === 'tokens'))
    p.push(
      `${path}.tokens: a slice with tokens rules must name the token counter that sizes a request (e.g. inference)`,
    );
  if (
    slice.claim !== undefined &&
    !(typeof slice.claim === 'string' && claims.includes(slice.claim))
  )
    p.push(
      claims.length > 0
        ? `${path}.claim: must be one of ${claims.join(', ')}`
        : `${path}.claim: unknown claim (no claim is registered)`,
    );
  if (slice.onLimit !== undefined && !(ON_LIMIT as readonly unknown[]).includes(slice.onLimit))
    p.push(`${path}.onLimit: must be one of ${ON_LIMIT.join(', ')}`);
  return p;
}

/** Largest claim TTL: a day (claims are for retries and redeliveries, not for records). */
export const MAX_CLAIM_TTL_MS = 86_400_000;

/** A claim function's answer, when usable: an id of 1-256 characters and an integer TTL of 1 ms to a day. */
export function claimUsable(c: { id: unknown; ttlMs: unknown } | undefined): boolean {
  return (
    c !== undefined &&
    typeof c.id === 'string' &&
    c.id.length > 0 &&
    c.id.length <= 256 &&
    typeof c.ttlMs === 'number' &&
    Number.isInteger(c.ttlMs) &&
    c.ttlMs >= 1 &&
    c.ttlMs <= MAX_CLAIM_TTL_MS
  );
}
