import { describe, expect, it } from 'vitest';
import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import { ManualClock } from '../../../common/clock.js';
import type { BucketSpec, DecideRequest } from '../core/decision.types.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import { MemoryRiskRecords } from './risk/memory-risk-records.js';

/** A rule of burst 2 refilling one token per second (full again 2 s after its last use). */
const bucket = (subject: string): BucketSpec => ({
  key: `rl:{t:rampart}:ip:${subject}:search.per-ip`,
  kind: 'g',
  capacity: 2,
  intervalUs: 1e6,
  cost: 1,
  shadow: false,
  soft: false,
  degradable: false,
  group: '{t:rampart}',
});
const req = (subject: string): DecideRequest => ({
  buckets: [bucket(subject)],
  degradeAt: 0,
  degradeFactor: 1,
  degradedHint: false,
});

describe('MemoryRateLimitStore bounds', () => {
  const setup = (max = 1_000) => {
    const clock = new ManualClock();
    return { clock, store: new MemoryRateLimitStore(clock, new MemoryRiskRecords(), max) };
  };

  it('should never hold more keys than its cap', async () => {
    const { clock, store } = setup(1_000);
    for (let i = 0; i < 5_000; i++) {
      await store.decide(req(`s${i}`)).catch(() => undefined);
      clock.advance(1);
      expect(store.size).toBeLessThanOrEqual(1_000);
    }
  });

  it('should never hand a subject a fresh quota by evicting its bucket: new subjects are refused instead', async () => {
    const { clock, store } = setup(1_000);
    // The spender empties its bucket, then 999 other subjects fill the store.
    for (let i = 0; i < 2; i++) expect((await store.decide(req('spender'))).allowed).toBe(true);
    for (let i = 0; i < 999; i++) await store.decide(req(`other${i}`));
    // A new subject finds no room and nothing is charged: MemoryStoreFullError (the limiter answers 503).
    await expect(store.decide(req('newcomer'))).rejects.toBeInstanceOf(MemoryStoreFullError);
    expect(store.peek(bucket('newcomer').key)).toBeUndefined();
    // The spender's empty bucket is still there: refused, not reset.
    expect((await store.decide(req('spender'))).allowed).toBe(false);
    // Once buckets have refilled (their keys expire), their places are free.
    clock.advance(3_001);
    expect((await store.decide(req('newcomer'))).allowed).toBe(true);
  });

  it('should decide subjects it holds while full, and a claim that does not fit charges nothing', async () => {
    const { store } = setup(1_000);
    for (let i = 0; i < 1_000; i++) await store.decide(req(`s${i}`));
    expect((await store.decide(req('s7'))).allowed).toBe(true);
    await expect(
      store.decide({ ...req('s8'), claim: { key: 'rl:{t:rampart}:claim:u:1', ttlMs: 60_000 } }),
    ).rejects.toBeInstanceOf(MemoryStoreFullError);
    // s8 (one token left) was not charged by the refused call: one more request passes.
    expect((await store.decide(req('s8'))).allowed).toBe(true);
    expect((await store.decide(req('s8'))).allowed).toBe(false);
  });
});
