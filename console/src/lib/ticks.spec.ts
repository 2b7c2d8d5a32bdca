import { describe, expect, it } from 'vitest';
import { niceCeil, timeLabel, timeSplits, timeStep, yLabel, yRange, ySplits } from './ticks.js';

/** Unix seconds of a local time today (labels are local). */
const at = (h: number, m: number, s: number, ms = 0) =>
  new Date(2026, 11, 6, h, m, s, ms).getTime() / 1000;

describe('ticks', () => {
  it('should round a maximum up to 1, 2, 2.5 or 5 × 10^k, and give an empty chart a 0–1 range', () => {
    expect([0.03, 0.2, 1.1, 2.2, 7, 10, 4200].map(niceCeil)).toEqual([
      0.05, 0.2, 2, 2.5, 10, 10, 5000,
    ]);
    expect(yRange(0)).toEqual([0, 1]);
    expect(yRange(null)).toEqual([0, 1]);
  });

  it('should always give three y ticks with readable labels, never a lone 0', () => {
    const [, top] = yRange(0.04);
    expect(ySplits(top)).toEqual([0, 0.025, 0.05]);
    expect(ySplits(top).map((v) => yLabel(v, top))).toEqual(['0', '0.025', '0.05']);
    expect(ySplits(2).map((v) => yLabel(v, 2))).toEqual(['0', '1', '2']);
    expect(ySplits(50).map((v) => yLabel(v, 50))).toEqual(['0', '25', '50']);
    expect(yLabel(25_000, 50_000)).toBe('25k');
  });

  it('should put time ticks on whole seconds only, also on a series a few seconds old', () => {
    const min = at(12, 0, 14, 200);
    const max = at(12, 0, 17, 700);
    const ticks = timeSplits(min, max, 6);
    expect(ticks.every((t) => Number.isInteger(t))).toBe(true);
    expect(ticks.map((t) => timeLabel(t, timeStep(min, max, 6)))).toEqual([
      '12:00:15',
      '12:00:16',
      '12:00:17',
    ]);
  });

  it('should widen the step with the span and drop the seconds from a minute step', () => {
    const min = at(12, 0, 0);
    const max = at(12, 15, 0);
    expect(timeStep(min, max, 6)).toBe(300);
    const ticks = timeSplits(min, max, 6);
    expect(ticks.map((t) => timeLabel(t, 300))).toEqual(['12:00', '12:05', '12:10', '12:15']);
    expect(timeLabel(at(9, 5, 7), 10)).toBe('09:05:07');
  });
});
