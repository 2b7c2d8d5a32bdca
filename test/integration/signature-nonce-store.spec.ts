import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { systemClock } from '../../src/common/clock.js';
import { MemoryNonceStore } from '../../src/locks/signature/nonce/memory-nonce.store.js';
import {
  NonceStore,
  NonceStoreUnavailableError,
} from '../../src/locks/signature/nonce/nonce-store.js';
import { RedisNonceStore } from '../../src/locks/signature/nonce/redis-nonce.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';

async function redisService(url: string, env = uniqueEnv('nonce')): Promise<RedisService> {
  const s = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL: url,
      RAMPART_ENV: env,
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    }),
    new MetricsService(),
  );
  await s.onModuleInit();
  return s;
}

async function until(cond: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Subject {
  store: NonceStore;
  /** A second store sharing the first one's state (another instance), when the store can be shared. */
  peer?: NonceStore;
  close(): Promise<void>;
}

let seq = 0;
const nonce = (): string => `n${process.pid}x${Date.now().toString(36)}x${++seq}`.padEnd(16, '0');

/** THE table both nonce stores pass: [name, factory, available, shared between instances]. */
const STORES: [string, () => Promise<Subject>, boolean, boolean][] = [
  [
    'MemoryNonceStore',
    async () => ({
      store: new MemoryNonceStore(systemClock, { sweepIntervalMs: 0 }),
      close: async () => undefined,
    }),
    true,
    false,
  ],
  [
    'RedisNonceStore',
    async () => {
      const env = uniqueEnv('nonce');
      const a = await redisService(redisUrl(), env);
      const b = await redisService(redisUrl(), env);
      return {
        store: new RedisNonceStore(a),
        peer: new RedisNonceStore(b),
        close: async () =>
          void (await Promise.all([a.onApplicationShutdown(), b.onApplicationShutdown()])),
      };
    },
    !!redisUrl(),
    true,
  ],
];

describe.each(STORES)('%s (shared nonce-store table)', (_name, make, available, shared) => {
  let s: Subject;
  beforeAll(async () => {
    if (available) s = await make();
  });
  afterAll(() => s?.close());

  it.skipIf(!available)('should accept a nonce once and refuse it the second time', async () => {
    const n = nonce();
    expect(await s.store.claim('app-1', n, 10_000)).toBe(true);
    expect(await s.store.claim('app-1', n, 10_000)).toBe(false);
  });

  it.skipIf(!available)('should keep nonces apart per app', async () => {
    const n = nonce();
    expect(await s.store.claim('app-1', n, 10_000)).toBe(true);
    expect(await s.store.claim('app-2', n, 10_000)).toBe(true);
  });

  it.skipIf(!available)('should free a nonce after its TTL, not before', async () => {
    const n = nonce();
    expect(await s.store.claim('app-1', n, 150)).toBe(true);
    expect(await s.store.claim('app-1', n, 150)).toBe(false);
    await until(() => s.store.claim('app-1', n, 150));
  });

  it.skipIf(!available)(
    'should let exactly one of many concurrent claims of one nonce win',
    async () => {
      const n = nonce();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => s.store.claim('app-1', n, 10_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    },
  );

  // The memory store is per instance by design (one instance without Redis); only a shared store can pass this row.
  it.skipIf(!available || !shared)(
    'should refuse on one instance a nonce claimed on another',
    async () => {
      const n = nonce();
      expect(await s.store.claim('app-1', n, 10_000)).toBe(true);
      expect(await s.peer!.claim('app-1', n, 10_000)).toBe(false);
    },
  );
});

describe.skipIf(!canStartRedis())(
  `${RedisNonceStore.name} with Redis down (private redis-server)`,
  () => {
    let server: RedisProcess;
    let redis: RedisService;
    beforeAll(async () => {
      server = await startRedis();
      redis = await redisService(server.url);
    });
    afterAll(async () => {
      await redis?.onApplicationShutdown();
      await server?.stop();
    });

    it('should write key nonce:{<env>:<service>}:<app>:<nonce> with a PX TTL', async () => {
      const store = new RedisNonceStore(redis);
      const n = nonce();
      await store.claim('app-1', n, 60_000);
      const key = store.key('app-1', n);
      expect(key).toBe(`nonce:${redis.tag}:app-1:${n}`);
      const ttl = await redis.run('pttl', (c) => c.pttl(key));
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it('should fail with NonceStoreUnavailableError (never "fresh") when Redis hangs or is gone', async () => {
      const store = new RedisNonceStore(redis);
      server.pause();
      try {
        await expect(store.claim('app-1', nonce(), 10_000)).rejects.toBeInstanceOf(
          NonceStoreUnavailableError,
        );
      } finally {
        server.resume();
      }
      await server.kill();
      await expect(store.claim('app-1', nonce(), 10_000)).rejects.toBeInstanceOf(
        NonceStoreUnavailableError,
      );
    });
  },
);
