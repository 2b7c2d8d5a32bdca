import { ADMIN_TOKEN } from '../../support/admin-client.js';
import { RunningApp, startApp } from '../../support/app.js';
import { redisUrl, uniqueEnv } from '../../support/redis-env.js';
import type { HttpAdapterName } from '../../../src/http/http-adapters.js';

/**
 * The whole app for the console tests: an admin token, the suite's Redis
 * under an environment name of its own (so its keys are its own), and short
 * intervals so counters, series and Redis figures move within a test.
 */
export function startConsoleApp(adapter: HttpAdapterName): Promise<RunningApp> {
  return startApp(
    {
      HTTP_ADAPTER: adapter,
      ADMIN_TOKEN,
      REDIS_URL: redisUrl() || undefined,
      RAMPART_ENV: uniqueEnv('console'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    },
    {
      config: (c) => ({
        ...c,
        sections: {
          ...c.sections,
          admin: { statsIntervalMs: 250, seriesStepMs: 500, redisSampleMs: 1000 },
        },
      }),
    },
  );
}
