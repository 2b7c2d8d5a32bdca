import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import {
  DEFAULT_COOLDOWN_MS,
  MAX_COOLDOWN_MS,
  retryAfterMs,
  UpstreamCooldowns,
} from './upstream-cooldowns.js';

describe(UpstreamCooldowns.name, () => {
  it('should skip an upstream until its Retry-After has passed, then forget it', () => {
    const clock = new ManualClock();
    const c = new UpstreamCooldowns(clock);
    expect(c.remainingMs('a')).toBe(0);
    c.coolDown('a', 3_000);
    clock.advance(1_000);
    expect(c.remainingMs('a')).toBe(2_000);
    expect(c.remainingMs('b')).toBe(0);
    clock.advance(2_000);
    expect(c.remainingMs('a')).toBe(0);
  });

  it('should keep the later end when two 429s overlap', () => {
    const clock = new ManualClock();
    const c = new UpstreamCooldowns(clock);
    c.coolDown('a', 10_000);
    c.coolDown('a', 1_000);
    expect(c.remainingMs('a')).toBe(10_000);
  });
});

describe(retryAfterMs.name, () => {
  const now = Date.parse('2026-12-06T04:00:00Z');

  it('should read seconds and HTTP dates', () => {
    expect(retryAfterMs('7', now)).toBe(7_000);
    expect(retryAfterMs('Sun, 06 Dec 2026 04:00:20 GMT', now)).toBe(20_000);
  });

  it('should fall back to the default when absent, unreadable or in the past', () => {
    for (const v of [undefined, 'soon', '-1', 'Sun, 06 Dec 2026 03:00:00 GMT'])
      expect(retryAfterMs(v, now)).toBe(DEFAULT_COOLDOWN_MS);
  });

  it('should cap what an upstream can ask for', () => {
    expect(retryAfterMs('86400', now)).toBe(MAX_COOLDOWN_MS);
  });
});
