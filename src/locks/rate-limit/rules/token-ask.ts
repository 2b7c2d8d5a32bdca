import { createHash } from 'node:crypto';
import type { TokenCount } from '../core/kinds/tokens.js';
import { spendMicros, type TokenPrice } from '../core/usage-keys.js';
import type { CompiledRule } from './compile-policy.js';

/** What a request reserves for its tokens rules (the slice's token counter). */
export interface TokenAsk {
  prompt: number;
  completion: number;
  model?: string;
  /** The model's price (USD per 1M tokens): its usage's spend and spend rules; none: spend 0, spend rules skipped. */
  price?: TokenPrice;
}

/**
 * What a rule counting `count` reserves for prompt and completion: tokens, or for `spend` micro-dollars at the
 * model's price (a spend rule applies only to a request with a price: `spendApplies`). An integer ≥ 1.
 */
export function tokensFor(
  count: TokenCount,
  t: { prompt: number; completion: number; price?: TokenPrice },
): number {
  const n =
    count === 'spend'
      ? spendMicros(t.prompt, t.completion, t.price)
      : count === 'prompt'
        ? t.prompt
        : count === 'completion'
          ? t.completion
          : t.prompt + t.completion;
  return Number.isFinite(n) && n >= 1 ? Math.ceil(n) : 1;
}

/** Whether a tokens rule applies to a sized request: a spend rule needs the model's price (else it is skipped). */
export function spendApplies(rule: CompiledRule, ask: TokenAsk): boolean {
  return rule.tokens?.count !== 'spend' || ask.price !== undefined;
}

const SAFE_MODEL = /^[A-Za-z0-9._-]{1,64}$/;

/** A model name as a key part: as is when short and plain, else a 96-bit hash (it comes from the client). */
export function modelPart(model: string | undefined): string {
  if (model === undefined) return '-';
  return SAFE_MODEL.test(model)
    ? model
    : `#${createHash('sha256').update(model).digest('base64url').slice(0, 16)}`;
}
