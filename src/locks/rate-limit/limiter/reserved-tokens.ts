import type { TokenUse } from '../../../http/request-state.js';
import type { BucketSpec, Decision } from '../core/decision.types.js';
import type { TokenCount } from '../core/kinds/tokens.js';
import { spendMicros, type TokenPrice } from '../core/usage-keys.js';
import type { ActiveRule } from '../rules/request-buckets.js';

/** One reservation of an allowed request: its bucket, what it counts, and the window it went to. */
export interface Reserved {
  rule: string;
  key: string;
  group: string;
  count: TokenCount;
  reserved: number;
  untilUs: number;
}

/** What a rule counting `count` is charged for what was used (0 allowed: an upstream that reported 0); spend: µ$. */
export function usedBy(count: TokenCount, u: TokenUse, price?: TokenPrice): number {
  if (count === 'spend') return spendMicros(usedBy('prompt', u), usedBy('completion', u), price);
  const n =
    count === 'prompt' ? u.prompt : count === 'completion' ? u.completion : u.prompt + u.completion;
  return Number.isFinite(n) && n > 0 ? Math.ceil(n) : 0;
}

/** The reservations an allowed decision made (its charged tokens buckets, shadow ones too); empty when none. */
export function reservationsOf(
  buckets: readonly BucketSpec[],
  active: readonly ActiveRule[],
  d: Decision,
): Reserved[] {
  if (!d.allowed || d.duplicate) return [];
  const out: Reserved[] = [];
  for (let i = 0; i < active.length; i++) {
    const t = active[i]!.rule.tokens;
    const o = d.buckets[i];
    if (!t || !o || o.charged <= 0 || o.untilUs === undefined) continue;
    const b = buckets[i]!;
    out.push({
      rule: active[i]!.rule.name,
      key: b.key,
      group: b.group,
      count: t.count,
      reserved: o.charged,
      untilUs: o.untilUs,
    });
  }
  return out;
}
