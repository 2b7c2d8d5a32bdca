import { describe, expect, it } from 'vitest';
import { budgetText, fromDraft, ruleFieldKeys, toDraft } from './rules.js';

describe(toDraft.name, () => {
  it('should round-trip a rule, keeping the fields the editor does not show', () => {
    const rule = {
      name: 'per-user',
      dimension: 'user',
      capacity: 30,
      rate: '60/min',
      penalty: { threshold: 5, factor: 0.5, decay: '1m' },
    };
    expect(fromDraft(toDraft(rule))).toEqual(rule);
  });

  it('should round-trip a concurrency rule: no rate, its lease kept', () => {
    const rule = {
      name: 'user-concurrent',
      dimension: 'user',
      algorithm: 'concurrency',
      capacity: 4,
      lease: '10m',
    };
    expect(fromDraft(toDraft(rule))).toEqual(rule);
  });

  it('should round-trip a tokens rule: no rate, its window, count and perModel kept', () => {
    const rule = {
      name: 'user-tokens',
      dimension: 'user',
      algorithm: 'tokens',
      capacity: 40000,
      window: '1m',
      count: 'total',
      perModel: true,
    };
    expect(fromDraft(toDraft(rule))).toEqual(rule);
  });

  it('should send numbers as numbers and anything else as typed (the service explains)', () => {
    const d = {
      ...toDraft({ name: 'x', dimension: 'ip' }),
      capacity: '-1',
      rate: '10/q',
      cost: '2',
    };
    expect(fromDraft(d)).toEqual({
      name: 'x',
      dimension: 'ip',
      capacity: -1,
      rate: '10/q',
      cost: 2,
    });
  });
});

describe(ruleFieldKeys.name, () => {
  it('should list every field of every rule', () => {
    expect(ruleFieldKeys(1)).toContain('rules.0.capacity');
    expect(ruleFieldKeys(2)).toContain('rules.1.name');
  });
});

describe(budgetText.name, () => {
  it('should round-trip a budget given in money, without a capacity', () => {
    const rule = {
      name: 'app-spend',
      dimension: 'app',
      algorithm: 'tokens',
      budget: '$5',
      window: '1d',
    };
    expect(fromDraft(toDraft(rule))).toEqual(rule);
    expect(budgetText(toDraft(rule))).toBe('$5 per 1d');
  });

  it("should show a spend rule's micro-dollar capacity as dollars, and nothing for a token rule", () => {
    const spend = {
      name: 's',
      dimension: 'app',
      algorithm: 'tokens',
      count: 'spend',
      capacity: 250000,
      window: '1h',
    };
    expect(budgetText(toDraft(spend))).toBe('$0.25 per 1h');
    expect(budgetText(toDraft({ ...spend, count: 'total' }))).toBeUndefined();
  });
});
