import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { RedisNonceStore } from '../../src/locks/signature/nonce/redis-nonce.store.js';
import { RedisSessionKeyStore } from '../../src/locks/signature/session-keys/redis-session-key.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { runSessionKeyStoreTable } from '../support/session-key-store.table.js';

describe('RedisSessionKeyStore (real redis-server)', () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = new RedisService(
      loadAppConfig({
        LOG_LEVEL: 'silent',
        REDIS_URL: redisUrl(),
        RAMPART_ENV: uniqueEnv('skeys'),
      }),
      new MetricsService(),
    );
    await redis.onModuleInit();
  });
  afterAll(() => redis?.onApplicationShutdown());

  runSessionKeyStoreTable(() =>
    Promise.resolve({
      store: new RedisSessionKeyStore(redis, new RedisNonceStore(redis)),
      pass: (ms) => new Promise((r) => setTimeout(r, ms)),
    }),
  );

  it('should keep the deny entry and the nonce in one Cluster slot (one hash tag)', () => {
    const store = new RedisSessionKeyStore(redis, new RedisNonceStore(redis));
    const tag = /\{[^}]+\}/;
    expect(store.key('sk1.a.b').match(tag)![0]).toBe(
      new RedisNonceStore(redis).key('a', 'n').match(tag)![0],
    );
  });
});
