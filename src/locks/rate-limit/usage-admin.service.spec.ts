import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import type { RedisService } from '../../redis/redis.service.js';
import { usageWrites } from './core/usage-keys.js';
import type { RateLimitSettings } from './rate-limit.types.js';
import { KeyHashers } from './store/lanes/key-hashers.js';
import type { RateLimitPeers } from './store/lanes/rate-limit-peers.service.js';
import { StoreLanes } from './store/lanes/store-lanes.js';
import { MemoryRateLimitStore } from './store/memory-rate-limit.store.js';
import { KeyHasher } from './subjects/key-hasher.js';
import { UsageAdmin } from './usage-admin.service.js';

const TAG = '{test:usage}';
const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;

/**
 * Redis configured, its key secret not known yet (just after boot): the first heartbeat brings it. `shared`
 * stands for Redis (a memory store read as the shared one); `memory` is the failMode-local lane.
 */
function setup(opts: { secretArrives: boolean }) {
  const clock = new ManualClock(NOW);
  const secret = Buffer.from('shared-secret-of-the-service');
  const peers = {
    localSecret: Buffer.from('this-instance-only'),
    sharedSecret: undefined as Buffer | undefined,
    liveInstances: 1,
    beat: () => {
      if (opts.secretArrives) peers.sharedSecret = secret;
      return Promise.resolve();
    },
  };
  const shared = new MemoryRateLimitStore(clock);
  const memory = new MemoryRateLimitStore(clock);
  const redis = { tag: TAG, enabled: true, ready: true } as unknown as RedisService;
  const hashers = new KeyHashers(peers as unknown as RateLimitPeers);
  const lanes = new StoreLanes(
    shared,
    memory,
    hashers,
    peers as unknown as RateLimitPeers,
    redis,
    { probeAfterMs: 1000 } as RateLimitSettings,
    clock,
  );
  const record = (
    store: MemoryRateLimitStore,
    hasher: KeyHasher,
    prompt: number,
  ): Promise<void> => {
    const who = {
      app: hasher.part('app', { value: 'app-a', personal: false }),
      user: hasher.part('user', { value: 'u1', personal: true, scope: 'app-a' }),
    };
    const rec = { ...who, model: 'gpt-4o-mini', prompt, completion: 1, spend: 0 };
    return store.settle([], usageWrites(TAG, rec, NOW));
  };
  return { admin: new UsageAdmin(lanes), shared, memory, secret, peers, record };
}

const query = {
  period: 'hour' as const,
  fromMs: NOW - HOUR,
  toMs: NOW + 1,
  apps: ['app-a'],
  user: 'u1',
  maxRows: 10,
};

describe(UsageAdmin.name, () => {
  it('should read the shared store with the shared key secret, waiting for it on the first read', async () => {
    const s = setup({ secretArrives: true });
    await s.record(s.shared, new KeyHasher(s.secret), 7);
    // What failMode local wrote in memory, under keys of this instance's own secret: never the answer.
    await s.record(s.memory, new KeyHasher(s.peers.localSecret), 1000);
    const u = await s.admin.usage(query);
    expect(u.rows).toEqual([expect.objectContaining({ app: 'app-a', promptTokens: 7 })]);
    expect(u.user).toBe(
      new KeyHasher(s.secret).part('user', { value: 'u1', personal: true, scope: 'app-a' }),
    );
  });

  it('should refuse (503) rather than answer from memory while the key secret is unknown', async () => {
    const s = setup({ secretArrives: false });
    await s.record(s.memory, new KeyHasher(s.peers.localSecret), 1000);
    await expect(s.admin.usage(query)).rejects.toMatchObject({ name: 'RedisUnavailableError' });
  });
});
