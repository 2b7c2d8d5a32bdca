import { describe, expect, it } from 'vitest';
import { fieldKey, placeProblems } from './problems.js';

describe(placeProblems.name, () => {
  const prefix = 'policies.search.locks.rateLimit';
  const fields = [
    'rules',
    'failMode',
    'rules.0',
    'rules.0.capacity',
    'rules.0.rate',
    'rules.1.name',
  ];

  it('should place a policy problem on the field its path names', () => {
    const placed = placeProblems(
      [
        `${prefix}.rules[0].capacity: must be an integer from 1 to 1000000000 (burst, in tokens)`,
        `${prefix}.rules[0].rate: must be tokens per second > 0`,
        `${prefix}.degrade: needs a rule on the global dimension (its soft threshold)`,
      ],
      prefix,
      fields,
    );
    expect(placed.fields).toEqual({
      'rules.0.capacity': ['must be an integer from 1 to 1000000000 (burst, in tokens)'],
      'rules.0.rate': ['must be tokens per second > 0'],
    });
    expect(placed.other).toEqual([
      `${prefix}.degrade: needs a rule on the global dimension (its soft threshold)`,
    ]);
  });

  it('should place a deeper path on the closest shown field', () => {
    const placed = placeProblems(
      [`${prefix}.rules[0].penalty.factor: must be < 1`],
      prefix,
      fields,
    );
    expect(placed.fields).toEqual({ 'rules.0': ['must be < 1'] });
  });

  it('should place a request-body problem by its leading field name', () => {
    const placed = placeProblems(
      ['id must be 1-64 characters of [A-Za-z0-9_.-]', 'something else went wrong'],
      '',
      ['id', 'tier'],
    );
    expect(placed.fields).toEqual({ id: ['id must be 1-64 characters of [A-Za-z0-9_.-]'] });
    expect(placed.other).toEqual(['something else went wrong']);
  });

  it('should turn array brackets into dotted keys', () => {
    expect(fieldKey('rules[12].rate')).toBe('rules.12.rate');
  });
});
