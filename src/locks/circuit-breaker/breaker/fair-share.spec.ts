import { describe, expect, it } from 'vitest';
import { Bulkhead } from './bulkhead.js';
import { FairShare, MAX_TENANTS, WAITING_MS } from './fair-share.js';

const pending = () => new Promise<void>(() => undefined);

describe(FairShare.name, () => {
  it('should let a tenant alone take every idle slot, then hold it to its share once another waits', () => {
    const b = new Bulkhead(() => undefined);
    const o = { capacity: 8, fair: true };
    const now = 1_000;
    for (let i = 0; i < 8; i++) {
      expect(b.admits('a', 1, o, now)).toBe(true);
      void b.hold(pending, { id: 'a', weight: 1, now: () => now });
    }
    // Full: b is refused, and now waits.
    expect(b.admits('b', 1, o, now)).toBe(false);
    expect(b.shares.held('a')).toBe(8);
  });

  it('should give a waiting tenant the freed slots, not the tenant above its share', async () => {
    const b = new Bulkhead(() => undefined);
    const o = { capacity: 4, fair: true };
    const t = 1_000;
    const done: (() => void)[] = [];
    const hold = (id: string, weight = 1) =>
      void b.hold(() => new Promise<void>((r) => done.push(r)), { id, weight, now: () => t });
    for (let i = 0; i < 4; i++) expect(b.admits('a', 1, o, t) && (hold('a'), true)).toBe(true);
    expect(b.admits('b', 1, o, t)).toBe(false);
    done.shift()!();
    await new Promise((r) => setImmediate(r));
    // One slot free: a holds 3 of its share of 2, b waits, so a is refused and b is admitted.
    expect(b.admits('a', 1, o, t)).toBe(false);
    expect(b.admits('b', 1, o, t)).toBe(true);
    // Unfair bulkheads keep first come, first served.
    expect(b.admits('a', 1, { capacity: 5, fair: false }, t)).toBe(true);
  });

  it('should weight shares by tier and forget a tenant that stopped waiting', () => {
    const f = new FairShare();
    f.taken('pro', 3);
    f.refused('free', 1, 0);
    // Shares of 8: pro 6, free 2.
    for (let i = 1; i < 6; i++) f.taken('pro', 3);
    expect(f.fair('pro', 3, 8, 10)).toBe(false);
    expect(f.fair('free', 1, 8, 10)).toBe(true);
    // free stopped asking: pro alone again.
    expect(f.fair('pro', 3, 8, WAITING_MS + 1)).toBe(true);
    expect(f.size).toBe(1);
  });

  it('should count the apps served within WAITING_MS, so one app cannot take the slots their short calls leave', () => {
    const f = new FairShare();
    // Ten apps each made a short call (taken and given back): none holds a slot now.
    for (let i = 0; i < 10; i++) {
      f.taken(`app${i}`, 1);
      f.released(`app${i}`, 1_000);
    }
    // A slow reader's app takes long-held slots of 8: its share is 1 (8 × 1 ÷ 11), not every idle slot.
    expect(f.fair('slow', 1, 8, 1_100)).toBe(true);
    f.taken('slow', 1);
    expect(f.fair('slow', 1, 8, 1_100)).toBe(false);
    // Once the others stopped calling, it is alone again.
    expect(f.fair('slow', 1, 8, 1_000 + WAITING_MS + 1)).toBe(true);
    expect(f.size).toBe(1);
  });

  it('should keep at most MAX_TENANTS waiting tenants', () => {
    const f = new FairShare();
    f.taken('holder', 1);
    for (let i = 0; i < MAX_TENANTS * 3; i++) f.refused(`t${i}`, 1, 0);
    expect(f.size).toBeLessThanOrEqual(MAX_TENANTS);
    expect(f.held('holder')).toBe(1);
  });
});
