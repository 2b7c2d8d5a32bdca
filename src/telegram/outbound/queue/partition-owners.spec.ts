import { describe, expect, it } from 'vitest';
import { PartitionOwners, assignPartitions } from './partition-owners.js';

const count = (owners: string[], id: string) => owners.filter((o) => o === id).length;

describe(assignPartitions.name, () => {
  it('should give every partition one owner, shares differing by one at most, whatever the roster order', () => {
    const three = assignPartitions(['b', 'c', 'a'], 8);
    expect(three).toHaveLength(8);
    expect(['a', 'b', 'c'].map((id) => count(three, id)).sort()).toEqual([2, 3, 3]);
    expect(assignPartitions(['c', 'a', 'b', 'a'], 8)).toEqual(three);
    expect(assignPartitions(['a'], 8)).toEqual(Array(8).fill('a'));
    // More workers than partitions: one each, the rest own none (they only take lanes that wait too long).
    const many = assignPartitions(['a', 'b', 'c', 'd', 'e'], 4);
    expect(new Set(many).size).toBe(4);
  });

  it("should hand a worker's partitions to the others when it leaves, the others keeping most of theirs", () => {
    const ids = ['w1', 'w2', 'w3'];
    const before = assignPartitions(ids, 8);
    const after = assignPartitions(['w1', 'w2'], 8);
    expect(after.every((o) => o !== 'w3')).toBe(true);
    expect(['w1', 'w2'].map((id) => count(after, id))).toEqual([4, 4]);
    const kept = before.filter((o, k) => o !== 'w3' && after[k] === o).length;
    expect(kept).toBeGreaterThanOrEqual(before.filter((o) => o !== 'w3').length - 1);
  });
});

describe(PartitionOwners.name, () => {
  it('should own every partition until it knows the roster, then its share, and say what it gained', () => {
    const o = new PartitionOwners(8, 1_000, 'w1');
    expect(o.owned).toBe(8);
    expect(o.assign(['w1', 'w2'])).toEqual([]);
    expect(o.owned).toBe(4);
    const gained = o.assign(['w1']);
    expect(gained).toHaveLength(4);
    expect(gained.every((k) => o.owns(k))).toBe(true);
  });

  it("should look at another's partition once, then again only when a lane there waited past the bound", () => {
    const o = new PartitionOwners(2, 1_000, 'w1');
    o.assign(['w1', 'w2']);
    const theirs = o.owns(0) ? 1 : 0;
    // Unknown: worth one look at once.
    expect(o.stealable(0)).toEqual([theirs]);
    o.looked(theirs, 0, undefined);
    expect(o.stealable(5_000)).toEqual([]);
    expect(o.nextSteal(5_000)).toBe(Infinity);
    // Its wake message says a lane is due at 6 000: worth a look from 7 000 on (not seen taken by then).
    o.heard(theirs, 6_000);
    expect(o.stealable(6_999)).toEqual([]);
    expect(o.stealable(7_000)).toEqual([theirs]);
    expect(o.nextSteal(6_000)).toBe(7_000);
    // Looked at 7 000, the next lane due there at 7 500: not before 8 500, nor within 1 s of the look.
    o.looked(theirs, 7_000, 7_500);
    expect(o.nextSteal(7_000)).toBe(8_500);
    // A lane due there since 8 800 (not yet past the bound at the look at 9 000): one look per second at most.
    o.looked(theirs, 9_000, 8_800);
    expect(o.nextSteal(9_000)).toBe(10_000);
  });
});
