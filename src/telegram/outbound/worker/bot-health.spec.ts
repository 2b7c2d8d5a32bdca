import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { BotHealth } from './bot-health.js';

const settle = () => new Promise((r) => setImmediate(r));

describe(BotHealth.name, () => {
  it('should take a bot out after a streak, probe it once when due, and take it back on success', async () => {
    const clock = new ManualClock();
    const h = new BotHealth(clock, 3, 1_000);
    let probes = 0;
    let answer = false;
    const probe = () => (probes++, Promise.resolve(answer));
    h.failure('a');
    h.failure('a');
    h.success('a'); // a success breaks the streak
    h.failure('a');
    h.failure('a');
    expect(h.usable('a', probe)).toBe(true);
    h.failure('a');
    expect(h.usable('a', probe)).toBe(false);
    expect(h.view('a')).toMatchObject({ health: 'out', consecutive_failures: 3 });
    expect(probes).toBe(0); // not due yet
    clock.advance(1_000);
    expect(h.usable('a', probe)).toBe(false);
    expect(h.usable('a', probe)).toBe(false);
    expect(probes).toBe(1); // one probe at a time (half-open)
    await settle();
    // A failed probe doubles the wait.
    clock.advance(1_999);
    h.usable('a', probe);
    expect(probes).toBe(1);
    clock.advance(1);
    answer = true;
    h.usable('a', probe);
    expect(probes).toBe(2);
    await settle();
    expect(h.usable('a', probe)).toBe(true);
    expect(h.view('a')).toMatchObject({ health: 'up', consecutive_failures: 0 });
    expect(h.view('other')).toEqual({ health: 'up', consecutive_failures: 0 });
  });
});
