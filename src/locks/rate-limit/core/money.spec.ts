import { describe, expect, it } from 'vitest';
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

describe(capacityOf.name, () => {
  it('should take a budget in money as micro-dollars, else the capacity', () => {
    expect(capacityOf({ budget: '$0.25' })).toBe(250_000);
    expect(capacityOf({ capacity: 30 })).toBe(30);
  });
});

describe(formatMicros.name, () => {
  it('should print micro-dollars as dollars', () => {
    expect(formatMicros(5_000_000)).toBe('$5');
    expect(formatMicros(250_000)).toBe('$0.25');
    expect(formatMicros(125)).toBe('$0.000125');
  });
});
