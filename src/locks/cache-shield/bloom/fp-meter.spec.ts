import { describe, expect, it } from 'vitest';
import { FpMeter } from './fp-meter.js';

describe(FpMeter.name, () => {
  it('should measure false positives among lookups of absent keys', () => {
    const m = new FpMeter();
    expect(m.rate).toBeNull();
    for (let i = 0; i < 98; i++) m.trueNegative();
    m.falsePositive();
    m.falsePositive();
    expect(m.rate).toBe(0.02);
    expect(m.samples).toBe(100);
    m.reset();
    expect(m.rate).toBeNull();
  });

  it('should report drift above factor × target only with enough samples, and not again within the interval', () => {
    const m = new FpMeter();
    for (let i = 0; i < 10; i++) m.falsePositive();
    expect(m.drifted(0.001, 2, 100, 0)).toBe(false);
    for (let i = 0; i < 90; i++) m.trueNegative();
    expect(m.drifted(0.001, 2, 100, 0)).toBe(true);
    expect(m.drifted(0.001, 2, 100, 30_000)).toBe(false);
    expect(m.drifted(0.001, 2, 100, 60_000)).toBe(true);
    expect(m.drifted(0.2, 2, 100, 200_000)).toBe(false);
  });
});
