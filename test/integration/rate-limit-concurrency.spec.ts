import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const CAPACITY = 50;
const PER_INSTANCE = 200;

describe.skipIf(!redisUrl())('rate limit across two app instances on one Redis', () => {
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    const env = {
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('rlx'),
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    };
    const config = withRateLimitPolicies({
      plain: {
        mode: 'enforce',
        failMode: 'closed',
        rules: [
          { name: 'global', dimension: 'global', capacity: CAPACITY, rate: '1/h' },
          { name: 'per-ip', dimension: 'ip', capacity: 10_000, rate: '1/h' },
          { name: 'route', dimension: 'route', capacity: 10_000, rate: '1/h' },
        ],
      },
    });
    for (const adapter of ['express', 'fastify']) {
      apps.push(
        await startApp(
          { ...env, HTTP_ADAPTER: adapter },
          { search: 'empty', imports: [RateLimitRoutesModule], config },
        ),
      );
    }
  });
  afterAll(() => Promise.all(apps.map((a) => a.close())));

  it(`should admit exactly the capacity out of ${2 * PER_INSTANCE} concurrent requests`, async () => {
    const all = await Promise.all(
      apps.flatMap((a) =>
        Array.from({ length: PER_INSTANCE }, () =>
          fetch(`${a.url}/rl-test/plain`).then((r) => r.status),
        ),
      ),
    );
    expect(all.filter((s) => s === 200)).toHaveLength(CAPACITY);
    expect(all.filter((s) => s === 429)).toHaveLength(2 * PER_INSTANCE - CAPACITY);
  });
});
