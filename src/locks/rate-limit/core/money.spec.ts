import { describe, expect, it } from 'vitest';
import { compileSlice } from '../rules/compile-policy.js';
import { validateRule } from '../rate-limit.validate-rule.js';
import { capacityOf, formatMicros, parseBudget } from './money.js';

describe(parseBudget.name, () => {
  it('should read dollars as integer micro-dollars', () => {
    expect(parseBudget('$5')).toBe(5_000_000);
    expect(parseBudget('$0.25')).toBe(250_000);
    expect(parseBudget('5 USD')).toBe(5_000_000);
    expect(parseBudget('0.000001usd')).toBe(1);
    expect(parseBudget('$1000')).toBe(1_000_000_000);
  });

  it('should refuse what is no amount, zero, too precise or too large', () => {
    for (const bad of ['5', '$', '$-1', '$0', '€5', '$5.0000001', '$1000.01', '5 EUR', 5, '$1e3'])
      expect(parseBudget(bad)).toBeUndefined();
  });
});

describe(formatMicros.name, () => {
  it('should print micro-dollars as dollars', () => {
    expect(formatMicros(5_000_000)).toBe('$5');
    expect(formatMicros(250_000)).toBe('$0.25');
    expect(formatMicros(125)).toBe('$0.000125');
  });
});

describe('budget rules', () => {
  const rule = { name: 'app-spend', dimension: 'app', algorithm: 'tokens', window: '1d' };

  it('should accept a budget in money instead of a capacity, compiled to micro-dollars of spend', () => {
    expect(validateRule({ ...rule, budget: '$5' }, 'r', [])).toEqual([]);
    expect(capacityOf({ budget: '$0.25' })).toBe(250_000);
    const none = () => undefined;
    const p = compileSlice(
      { mode: 'enforce', rules: [{ ...rule, budget: '$5' }] } as never,
      'inference',
      { cost: none, subject: () => () => undefined, attribute: none, claim: none } as never,
    );
    expect(p.rules[0]).toMatchObject({ capacity: 5_000_000, tokens: { count: 'spend' } });
  });

  it('should say what is wrong with a bad budget, at its path', () => {
    expect(validateRule({ ...rule, budget: 'five dollars' }, 'r', [])).toEqual([
      expect.stringMatching(/^r\.budget: must be an amount in US dollars .*"\$5"/),
    ]);
    expect(validateRule({ ...rule, budget: '$5', capacity: 5 }, 'r', [])).toEqual([
      'r.capacity: give capacity (micro-dollars) or budget, not both',
    ]);
    expect(validateRule({ ...rule, budget: '$5', count: 'total' }, 'r', [])).toEqual([
      'r.budget: a budget counts spend (count must be spend or left out)',
    ]);
    expect(
      validateRule({ name: 'x', dimension: 'app', capacity: 1, rate: 1, budget: '$5' }, 'r', []),
    ).toEqual([expect.stringMatching(/^r\.budget: unknown option/)]);
  });
});
