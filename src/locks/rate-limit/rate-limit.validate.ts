import { LOCK_MODES } from '../../config/policy.types.js';
import { FAIL_MODES } from './core/rate-limit-slice.types.js';
import { fraction, oneOf, posInt, validateRule } from './rate-limit.validate-rule.js';
import { isRecord } from '../../common/is-record.js';
import {
  NO_NAMES,
  RegisteredNames,
  validateSliceExtras,
} from './rate-limit.validate-extensions.js';

import { validateLoadOptions } from './settings/load.validate.js';
import { validateFailQueue } from './settings/fail-queue.validate.js';
const SLICE_KEYS = new Set([
  'mode',
  'override',
  'failMode',
  'failQueue',
  'rules',
  'cost',
  'tiers',
  'degrade',
  'headers',
  'claim',
  'tokens',
  'onLimit',
  'degradeRank',
  'criticalWhen',
]);
/**
 * Every problem with a rateLimit slice (empty = valid); `path` is where it sits, for messages.
 * `costNames`: the cost functions the products registered (RateLimitExtensions), the only names
 * a slice's `cost` may take; `names`: the attributes and claims registered (conditions, `claim`).
 */
export function validateSlice(
  slice: unknown,
  path: string,
  costNames: readonly string[],
  names: Omit<RegisteredNames, 'costs'> = NO_NAMES,
): string[] {
  if (!isRecord(slice)) return [`${path}: must be an object`];
  const p: string[] = [];
  for (const k of Object.keys(slice))
    if (!SLICE_KEYS.has(k))
      p.push(`${path}.${k}: unknown option (known: ${[...SLICE_KEYS].join(', ')})`);
  if (!oneOf(slice.mode, LOCK_MODES))
    p.push(`${path}.mode: must be one of ${LOCK_MODES.join(', ')}`);
  if (slice.failMode !== undefined && !oneOf(slice.failMode, FAIL_MODES))
    p.push(`${path}.failMode: must be one of ${FAIL_MODES.join(', ')}`);
  p.push(...validateFailQueue(slice, path));
  const off = slice.mode === 'off' && slice.override === undefined;
  if (slice.rules === undefined ? !off : !Array.isArray(slice.rules)) {
    p.push(`${path}.rules: must be a list of rules`);
  } else if (Array.isArray(slice.rules)) {
    if (slice.rules.length === 0 && !off)
      p.push(`${path}.rules: needs at least one rule when the lock is on`);
    const seen = new Set<string>();
    slice.rules.forEach((r, i) => {
      p.push(...validateRule(r, `${path}.rules[${i}]`, names.attributes));
      const name = isRecord(r) ? r.name : undefined;
      if (typeof name === 'string') {
        if (seen.has(name)) p.push(`${path}.rules[${i}].name: "${name}" is used twice`);
        seen.add(name);
      }
    });
  }
  if (slice.cost !== undefined && !posInt(slice.cost) && !oneOf(slice.cost, costNames)) {
    p.push(
      costNames.length > 0
        ? `${path}.cost: must be an integer ≥ 1 or one of ${costNames.join(', ')}`
        : `${path}.cost: must be an integer ≥ 1 (no cost function is registered)`,
    );
  }
  if (slice.tiers !== undefined) {
    if (!isRecord(slice.tiers))
      p.push(`${path}.tiers: must map tier names to multipliers, e.g. {free: 1, pro: 5}`);
    else
      for (const [t, m] of Object.entries(slice.tiers))
        if (!(typeof m === 'number' && m > 0 && m <= 1000))
          p.push(`${path}.tiers.${t}: must be a number with 0 < multiplier ≤ 1000`);
  }
  if (slice.degrade !== undefined) {
    const d = slice.degrade;
    if (!isRecord(d)) p.push(`${path}.degrade: must be an object {at, factor}`);
    else {
      if (!fraction(d.at, 1, false))
        p.push(`${path}.degrade.at: must be a fraction with 0 < at < 1`);
      if (!fraction(d.factor, 1, true))
        p.push(`${path}.degrade.factor: must be a number with 0 < factor ≤ 1`);
      const rules = Array.isArray(slice.rules) ? slice.rules : [];
      if (!rules.some((r) => isRecord(r) && r.dimension === 'global'))
        p.push(`${path}.degrade: needs a rule on the global dimension (its soft threshold)`);
    }
  }
  if (slice.headers !== undefined && typeof slice.headers !== 'boolean')
    p.push(`${path}.headers: must be true or false`);
  p.push(...validateSliceExtras(slice, path, names.claims, names.tokens));
  p.push(...validateLoadOptions(slice, path, names.attributes));
  return p;
}
