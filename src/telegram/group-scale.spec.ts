import { describe, expect, it } from 'vitest';
import { groupFactor, parseGroupScale } from './group-scale.js';

const TABLE = [
  { members: 0, factor: 1 },
  { members: 100, factor: 2 },
  { members: 1000, factor: 4 },
];

describe(groupFactor.name, () => {
  it('should take the last row the group reaches', () => {
    expect([0, 99, 100, 999, 1000, 50_000].map((n) => groupFactor(TABLE, n))).toEqual([
      1, 1, 2, 2, 4, 4,
    ]);
  });

  it('should give 1 below the first row', () => {
    expect(groupFactor([{ members: 50, factor: 3 }], 49)).toBe(1);
  });
});

describe(parseGroupScale.name, () => {
  const parse = (raw: unknown) => {
    const p: string[] = [];
    return { rows: parseGroupScale(raw, 'telegram.bots[0]', p), p };
  };

  it('should accept an ascending table and leave an absent one undefined', () => {
    expect(parse(TABLE)).toEqual({ rows: TABLE, p: [] });
    expect(parse(undefined)).toEqual({ rows: undefined, p: [] });
  });

  it.each([
    ['empty', []],
    ['not a list', { members: 0, factor: 1 }],
    ['descending', [TABLE[1], TABLE[0]]],
    ['duplicate members', [TABLE[0], TABLE[0]]],
    ['factor 0', [{ members: 0, factor: 0 }]],
    ['factor too big', [{ members: 0, factor: 101 }]],
    ['negative members', [{ members: -1, factor: 1 }]],
    ['fractional members', [{ members: 1.5, factor: 1 }]],
    ['unknown key', [{ members: 0, factor: 1, extra: true }]],
    ['too many rows', Array.from({ length: 17 }, (_, i) => ({ members: i, factor: 1 }))],
  ])('should refuse %s', (_, raw) => {
    const { rows, p } = parse(raw);
    expect(rows).toBeUndefined();
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^telegram\.bots\[0\]\.groupScale must be/);
  });
});
