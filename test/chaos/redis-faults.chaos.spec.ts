/**
 * Redis faults under load, on a redis-server of the test's own: killed (-9)
 * and restarted on the same port, then made slow by a delaying TCP proxy.
 * Checks: no request waits past the bound (command timeout × Redis calls
 * per request + the breaker timeout + scheduling slack), every answer is one
 * the route's design gives (search: failMode local, shield bypass), readiness
 * back within 2 s of Redis returning, and afterwards no key without a TTL.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { RunningApp, startApp } from '../support/app.js';
import {
  DelayProxy,
  chaosPolicies,
  fixtureSearchEnv,
  keysWithoutTtl,
  loadLoop,
  metricSum,
  msUntil,
  sleep,
  startDelayProxy,
  undesigned,
} from '../support/chaos.js';
import { canStartRedis } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

const COMMAND_TIMEOUT_MS = 100;
/** The search breaker's timeout as shipped. */
const BREAKER_TIMEOUT_MS = 2_000;
/** A search request makes at most 3 Redis calls in sequence (rate limit, cache read, cache write); 500 ms for a busy 2-core box. */
const BOUND_MS = 3 * COMMAND_TIMEOUT_MS + BREAKER_TIMEOUT_MS + 500;

const TARGETS = (app: RunningApp) => [
  { route: 'search', url: (i: number) => `${app.url}/v1/search?q=paris&offset=${i % 7}` },
  { route: 'search', url: (i: number) => `${app.url}/v1/search?q=qqzx${i}vw` },
  { route: 'search', url: (i: number) => `${app.url}/v1/search/items/2988507?n=${i % 5}` },
];

async function boot(redisUrl: string): Promise<RunningApp> {
  const app = await startApp(
    {
      REDIS_URL: redisUrl,
      RAMPART_ENV: 'chaos',
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      REDIS_MAX_RECONNECT_DELAY_MS: '500',
      ...(await fixtureSearchEnv()),
    },
    { config: chaosPolicies },
  );
  await app.app.get(BloomService).ready;
  return app;
}

async function readyStatus(app: RunningApp): Promise<number> {
  return (await fetch(`${app.url}/health/ready`)).status;
}

/** Ready before the fault: on a busy machine the first Redis probe can time out (100 ms here). */
async function untilReady(app: RunningApp): Promise<void> {
  await vi.waitFor(async () => expect(await readyStatus(app)).toBe(200), {
    timeout: 20_000,
    interval: 100,
  });
}

describe.skipIf(!canStartRedis())('chaos: Redis killed and restarted under load', () => {
  let redis: RedisProcess;
  let app: RunningApp;

  beforeAll(async () => {
    redis = await startRedis();
    app = await boot(redis.url);
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('should answer every request within the bound and by design, and recover within 2 s', async () => {
    await untilReady(app);
    const load = loadLoop(TARGETS(app), { concurrency: 4, maxMs: 20_000, pauseMs: 2 });
    await sleep(1_500);
    await redis.kill();
    await sleep(2_000);
    await redis.start();
    const back = await msUntil(
      async () => app.app.get(RedisService).ready && (await readyStatus(app)) === 200,
      5_000,
    );
    await sleep(1_500);
    const samples = await load.stop();

    // The fault was felt: commands failed as unavailable (timed out or refused), not hung.
    expect(
      await metricSum(app.url, 'rampart_redis_errors_total', 'kind="unavailable"'),
    ).toBeGreaterThan(0);
    expect(back).toBeLessThanOrEqual(2_000);
    expect(samples.length).toBeGreaterThan(100);
    expect(undesigned(samples)).toEqual([]);
    expect(samples.filter((s) => s.ms > BOUND_MS)).toEqual([]);
    const client = new Redis(redis.url);
    try {
      expect(await keysWithoutTtl(client)).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});

describe.skipIf(!canStartRedis())('chaos: Redis slowed by a delaying proxy under load', () => {
  let redis: RedisProcess;
  let proxy: DelayProxy;
  let app: RunningApp;

  beforeAll(async () => {
    redis = await startRedis();
    proxy = await startDelayProxy(redis.port);
    app = await boot(`redis://127.0.0.1:${proxy.port}`);
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await redis?.stop();
  });

  it('should time commands out instead of waiting, answer by design, and recover within 2 s', async () => {
    await untilReady(app);
    const load = loadLoop(TARGETS(app), { concurrency: 4, maxMs: 20_000, pauseMs: 2 });
    await sleep(1_500);
    proxy.setDelay(COMMAND_TIMEOUT_MS * 3);
    await sleep(2_500);
    proxy.setDelay(0);
    const back = await msUntil(async () => (await readyStatus(app)) === 200, 5_000);
    await sleep(1_500);
    const samples = await load.stop();

    // The fault was felt: commands failed as unavailable (timed out or refused), not hung.
    expect(
      await metricSum(app.url, 'rampart_redis_errors_total', 'kind="unavailable"'),
    ).toBeGreaterThan(0);
    expect(back).toBeLessThanOrEqual(2_000);
    expect(samples.length).toBeGreaterThan(100);
    expect(undesigned(samples)).toEqual([]);
    expect(samples.filter((s) => s.ms > BOUND_MS)).toEqual([]);
    const client = new Redis(redis.url);
    try {
      expect(await keysWithoutTtl(client)).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});
