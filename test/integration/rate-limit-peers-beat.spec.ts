import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { ManualClock } from '../../src/common/clock.js';
import { rateLimitSettings } from '../../src/locks/rate-limit/rate-limit.settings.js';
import { RateLimitPeers } from '../../src/locks/rate-limit/store/lanes/rate-limit-peers.service.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { HeartbeatRiders } from '../../src/redis/heartbeat-riders.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

/**
 * The instance heartbeat is single flight even when what it asks its riders asks for a beat in turn (the load
 * read looks at the store lanes, which ask for a beat while the key secret is unknown): one script call, no
 * recursion. Before, the beat started inside itself until the stack overflowed (unhandled RangeErrors).
 */
describe.skipIf(!redisUrl())('rate-limit peers heartbeat', () => {
  let redis: RedisService;
  let peers: RateLimitPeers;
  let riders: HeartbeatRiders;
  const metrics = new MetricsService();

  beforeAll(async () => {
    const config = loadAppConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('beat'),
    });
    redis = new RedisService(config, metrics);
    await redis.onModuleInit();
    riders = new HeartbeatRiders();
    const clock = new ManualClock(Date.now());
    peers = new RateLimitPeers(redis, config, rateLimitSettings(config), metrics, clock, riders);
  }, 60_000);
  afterAll(() => redis?.onApplicationShutdown());

  it('should make one call when a rider asks for a beat while the beat asks it', async () => {
    const script = vi.spyOn(redis, 'script');
    let asked = 0;
    let joined: Promise<void> | undefined;
    riders.setReader({
      read: () => {
        asked++;
        if (asked < 100) joined = peers.beat(); // what the store lanes do while the secret is unknown
        return undefined;
      },
    });
    const first = peers.beat();
    await first;
    await joined;
    expect(asked).toBe(1);
    expect(joined).toBe(first);
    expect(script.mock.calls.map((c) => c[0])).toEqual(['ratelimit_instance']);
    expect(peers.sharedSecret).toBeDefined();
    script.mockRestore();
  });
});
