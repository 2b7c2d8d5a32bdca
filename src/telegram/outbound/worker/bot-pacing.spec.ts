import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { BotPacing } from './bot-pacing.js';

const HOUR = 3_600_000;

describe('BotPacing: a cooldown lifted early', () => {
  it('should forget a cooldown the gate stored, and keep a 429 the gate has not stored yet', () => {
    const clock = new ManualClock(1_000);
    const p = new BotPacing(clock);
    p.cooled('a', 1_000 + HOUR, 'gate');
    p.lift('a');
    expect(p.cooling('a')).toBeUndefined();
    // A 429 read while its cooldown is on its way to the gate is newer than any lift.
    p.cooled('b', 1_000 + HOUR, 'answer');
    p.lift('b');
    p.sync('b', undefined);
    expect(p.cooling('b')).toBe(1_000 + HOUR);
    expect(p.syncable()).toEqual([]);
    p.stored('b', 1_020 + HOUR);
    expect(p.syncable()).toEqual(['b']);
    p.lift('b');
    expect(p.cooling('b')).toBeUndefined();
  });

  it("should take the gate's cooldown when it read it after learning its own (a lift whose message was lost)", () => {
    const clock = new ManualClock(1_000);
    const p = new BotPacing(clock);
    p.cooled('a', 1_000 + HOUR, 'gate');
    p.sync('a', undefined); // lifted
    expect(p.cooling('a')).toBeUndefined();
    expect(p.room(['a'], 0).at).toBeLessThanOrEqual(clock.now());
    // Lifted, then cooled again (another worker's 429): the new, shorter cooldown holds.
    p.cooled('a', 1_000 + HOUR, 'gate');
    p.sync('a', 1_000 + 5_000);
    expect(p.cooling('a')).toBe(6_000);
  });
});

describe('BotPacing: room for lanes', () => {
  it("should count a bot's slots left within the horizon from the last reserved, every worker's after a refusal", () => {
    const clock = new ManualClock(1_000);
    const p = new BotPacing(clock);
    // This worker reserved a slot 450 ms ahead (interval 100 ms): one more fits within 550 ms.
    p.reserved('a', 1_450, 100, 550);
    expect(p.room(['a'], 550)).toEqual({ at: 1_000, lanes: 1 });
    // The gate refused: no slot within 550 ms for 200 ms (other workers reserved the rest). None before then,
    // then one an interval (claiming more after a refusal only put lanes back).
    p.refused('a', 200, 100, 550);
    expect(p.room(['a'], 550)).toEqual({ at: 1_200, lanes: 0 });
    clock.advance(200);
    expect(p.room(['a'], 550).lanes).toBe(1);
    clock.advance(100);
    expect(p.room(['a'], 550).lanes).toBe(2);
  });
});
