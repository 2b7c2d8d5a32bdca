import { describe, expect, it } from 'vitest';
import { RedisScriptError } from '../../../redis/redis.errors.js';
import { ManualClock } from '../../../common/clock.js';
import type { BucketSpec } from '../core/decision.types.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';
import type { ScriptRunner } from './redis-store.options.js';

// The scenario table runs this store against a real Redis (test/integration/rate-limit-store.spec.ts);
// here a fixed reply checks how the store reads it, which a real script never gets wrong on purpose.
const NOW_US = 1_800_000_000_000_000;
const bucket: BucketSpec = {
  key: 'rl:{t:rampart}:user:s:a',
  kind: 'g',
  capacity: 2,
  intervalUs: 1e6,
  cost: 1,
  shadow: false,
  soft: false,
  degradable: false,
  group: '{t:rampart}',
};
const runner = (reply: (string | number | null)[]): ScriptRunner => ({
  script: <T>() => Promise.resolve(reply as T),
});
const request = { buckets: [bucket], degradeAt: 0, degradeFactor: 1, degradedHint: false };

describe(RedisRateLimitStore.name, () => {
  it('should derive every figure from the state the script read', async () => {
    // One token of two already taken (TAT one interval ahead): this request takes the last one.
    const store = new RedisRateLimitStore(runner([String(NOW_US + 1e6), NOW_US, 1, 0, 0, -1]), {
      clock: 'redis',
      cluster: false,
      appClock: new ManualClock(),
    });
    const d = await store.decide(request);
    expect(d).toMatchObject({ allowed: true, blocker: -1, degraded: false, nowMs: NOW_US / 1000 });
    expect(d.buckets[0]).toEqual({
      allowed: true,
      remaining: 0,
      retryAfterMs: 1000,
      resetMs: 2000,
      limit: 2,
      charged: 1e6,
    });
  });

  it('should fail loudly, naming the script, when the script and bucket-math.ts disagree on a decision', async () => {
    // An empty bucket fits, yet this reply says the script refused.
    const store = new RedisRateLimitStore(runner([null, NOW_US, 0, 0, 0, -1]), {
      clock: 'redis',
      cluster: false,
      appClock: new ManualClock(),
    });
    await expect(store.decide(request)).rejects.toThrow(RedisScriptError);
    await expect(store.decide(request)).rejects.toThrow(/ratelimit_decide/);
  });

  it('should read a duplicate, and check the told blocker against bucket-math.ts', async () => {
    const claim = { key: 'rl:{t:rampart}:claim:update:1', ttlMs: 1000 };
    const dup = new RedisRateLimitStore(runner(['dup']), {
      clock: 'redis',
      cluster: false,
      appClock: new ManualClock(),
    });
    expect(await dup.decide({ ...request, claim })).toMatchObject({ duplicate: true, buckets: [] });
    // Full bucket (TAT two intervals ahead): refused, blocker 0, told now.
    const full = String(NOW_US + 2e6);
    const told = { ...request, told: ['rl:{t:rampart}:told:user:s:a'] };
    const ok = new RedisRateLimitStore(runner([full, NOW_US, 0, 0, 1, 0]), {
      clock: 'redis',
      cluster: false,
      appClock: new ManualClock(),
    });
    expect(await ok.decide(told)).toMatchObject({ allowed: false, blocker: 0, notify: true });
    const wrong = new RedisRateLimitStore(runner([full, NOW_US, 0, 0, 1, -1]), {
      clock: 'redis',
      cluster: false,
      appClock: new ManualClock(),
    });
    await expect(wrong.decide(told)).rejects.toThrow(/blocker=-1/);
  });
});
