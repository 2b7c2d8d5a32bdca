import { loadAppConfig } from '../../src/app.config.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { redisUrl } from './redis-env.js';

/**
 * A connected RedisService (scripts loaded) on the suite's Redis, or on what
 * `env` names; close it with `onApplicationShutdown()`.
 */
export async function connectRedisService(env: Record<string, string> = {}): Promise<RedisService> {
  const redis = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL: redisUrl(),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      ...env,
    }),
    new MetricsService(),
  );
  await redis.onModuleInit();
  return redis;
}
