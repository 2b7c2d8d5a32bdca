import { describe, expect, it } from 'vitest';
import { validateRule } from '../rate-limit.validate-rule.js';
import { compileSlice } from './compile-policy.js';

describe('spend budgets in money (budget)', () => {
  const rule = { name: 'app-spend', dimension: 'app', algorithm: 'tokens', window: '1d' };

  it('should accept a budget in money instead of a capacity, compiled to micro-dollars of spend', () => {
    expect(validateRule({ ...rule, budget: '$5' }, 'r', [])).toEqual([]);
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
