import { afterAll, beforeAll, describe } from 'vitest';
import { RedisPollStateStore } from '../../src/telegram/polling/redis-poll-state.store.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { runPollStateStoreTable } from '../support/poll-state-store.table.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { connectRedisService } from '../support/redis-service.js';

describe.skipIf(!redisUrl())(RedisPollStateStore.name, () => {
  let redis: RedisService;

  beforeAll(async () => {
    redis = await connectRedisService();
  });
  afterAll(() => redis?.onApplicationShutdown());

  runPollStateStoreTable(() =>
    Promise.resolve({
      store: new RedisPollStateStore(redis),
      // Keys are `tg:{<env>:<service>}:poll:<bot>:…`: a bot id of its own per case.
      bot: uniqueEnv('bot'),
      pass: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    }),
  );
});
