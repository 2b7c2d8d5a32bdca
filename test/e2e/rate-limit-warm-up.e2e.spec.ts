/**
 * Warm-up (docs/rate-limit.md#warm-up): a gcra rule with `warmUp` admits a burst on a cold route at a third of its
 * rate, and on a warm route (traffic within the warm-up period) at the full rate. Both adapters, both stores.
 * Assertions go by counts of admitted and refused requests, not by wall clock (the waits below only let the
 * warm-up run its course: the counts hold for any timing within wide margins).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const STORES: { store: string; env: () => Record<string, string> }[] = [
  { store: 'memory', env: () => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: () => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('rlw'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/**
 * Per user: a burst of 1, 4/s (250 ms a token), held up to 250 ms, warm-up 1 s. Cold: 750 ms a token, so a burst
 * gets one request through; warm: two (one at once, one held 250 ms).
 */
const WARMING = {
  mode: 'enforce' as const,
  rules: [
    {
      name: 'per-user',
      dimension: 'user' as const,
      capacity: 1,
      rate: '4/s',
      maxWaitMs: 250,
      warmUp: '1s',
    },
  ],
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'warm-up over HTTP ($adapter, $store store)',
  ({ adapter, env }) => {
    let app: RunningApp | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });
    const get = (a: RunningApp, user: string): Promise<Response> =>
      fetch(`${a.url}/rl-test/plain`, { headers: { 'x-user-id': user } });
    const burst = async (a: RunningApp, user: string, n: number) => {
      const all = await Promise.all(Array.from({ length: n }, () => get(a, user)));
      return all.map((r) => r.status);
    };

    it('should admit fewer of a burst on a cold route than on a warm one with the same rule', async () => {
      app = await startApp(
        { HTTP_ADAPTER: adapter, ...env() },
        {
          search: 'empty',
          imports: [RateLimitRoutesModule],
          config: withRateLimitPolicies(
            { plain: WARMING },
            { rateLimit: { userHeader: 'x-user-id' } },
          ),
        },
      );
      const a = app;
      // Warm user w's route up: steady traffic past the 1 s warm-up, then let its bucket fill (idle < 1 s).
      for (let i = 0; i < 5; i++) {
        await get(a, 'w');
        await sleep(300);
      }
      await sleep(300);
      // The same burst of three on the warm route (w) and on a cold one (c, never seen), at the same moment.
      const [warm, cold] = await Promise.all([burst(a, 'w', 3), burst(a, 'c', 3)]);
      const count = (s: number[], status: number) => s.filter((x) => x === status).length;
      expect(count(warm, 200)).toBe(2);
      expect(count(warm, 429)).toBe(1);
      expect(count(cold, 200)).toBe(1);
      expect(count(cold, 429)).toBe(2);
    });
  },
);
