import { describe, expect, it } from 'vitest';
import { riskParams } from '../../core/risk-params.js';
import { defaultRiskSettings } from '../../settings/risk.settings.js';
import { MemoryRiskRecords } from './memory-risk-records.js';

const NOW = 1_800_000_000_000;
const p = riskParams(defaultRiskSettings(), undefined);

describe(MemoryRiskRecords.name, () => {
  it('should make room by forgetting a subject without score, never one with a live score', () => {
    const r = new MemoryRiskRecords(3);
    r.upsert('bad', NOW, p).s = NOW * 1000 + 60e6; // a live score (one minute of points)
    r.seen(['clean1', 'clean2'], [undefined, undefined], NOW, p);
    r.seen(['new'], [undefined], NOW + 1, p);
    expect(r.size).toBe(3);
    expect(r.get('bad', NOW + 1)).toBeDefined();
    expect(r.get('clean1', NOW + 1)).toBeUndefined(); // judged as new again: a stricter quota
    expect(r.get('new', NOW + 1)).toBeDefined();
  });

  it('should leave a first-seen subject without a record when full of scored ones, and keep a new signal', () => {
    const r = new MemoryRiskRecords(2);
    for (const k of ['bad1', 'bad2']) r.upsert(k, NOW, p).s = NOW * 1000 + 60e6;
    r.seen(['newcomer'], [undefined], NOW, p);
    expect(r.get('newcomer', NOW)).toBeUndefined();
    expect(r.size).toBe(2);
    // A signal takes the place of the least recently written record.
    r.upsert('bad3', NOW, p).s = NOW * 1000 + 60e6;
    expect([r.get('bad1', NOW), r.get('bad2', NOW), r.get('bad3', NOW)].map(Boolean)).toEqual([
      false,
      true,
      true,
    ]);
  });
});
