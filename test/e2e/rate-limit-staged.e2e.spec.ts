/**
 * Staged enforcement (docs/rate-limit.md#staged-enforcement): a rule with `stage: {subjects: 50}` refuses
 * about half of its subjects and only shadows the rest, and the same subjects on both instances (express
 * and fastify on one Redis); `stage: {instances: 0}` refuses nobody on this instance, yet counts the
 * would-have refusals. Shared Redis of the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { sample } from '../support/metrics-sample.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const USERS = 40;

const post = (app: RunningApp, user: string): Promise<number> =>
  fetch(`${app.url}/rl-test/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user-id': user },
    body: '{}',
  }).then((r) => r.status);
const get = (app: RunningApp, user: string): Promise<number> =>
  fetch(`${app.url}/rl-test/admin`, { headers: { 'x-user-id': user } }).then((r) => r.status);

const config = withRateLimitPolicies(
  {
    infer: {
      mode: 'enforce',
      rules: [
        {
          name: 'per-user',
          dimension: 'user',
          capacity: 1,
          rate: '1/h',
          stage: { subjects: 50 },
        },
      ],
    },
    admin: {
      mode: 'enforce',
      rules: [
        {
          name: 'per-user',
          dimension: 'user',
          capacity: 1,
          rate: '1/h',
          stage: { instances: 0 },
        },
      ],
    },
  },
  { rateLimit: { userHeader: 'x-user-id' } },
);

describe.skipIf(!redisUrl())('rate limit: staged enforcement', () => {
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    const env = {
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('stage'),
      RATE_LIMIT_KEY_SECRET: 'staged-enforcement-test-secret',
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    };
    for (const adapter of ['express', 'fastify'])
      apps.push(
        await startApp(
          { ...env, HTTP_ADAPTER: adapter },
          { search: 'empty', imports: [RateLimitRoutesModule], config },
        ),
      );
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  it('should enforce for a share of subjects only, the same subjects on every instance', async () => {
    const [express, fastify] = apps as [RunningApp, RunningApp];
    const refusedOn = async (app: RunningApp): Promise<string[]> => {
      const refused: string[] = [];
      for (let i = 0; i < USERS; i++)
        if ((await post(app, `user-${i}`)) === 429) refused.push(`user-${i}`);
      return refused;
    };
    expect(await refusedOn(express)).toEqual([]); // capacity 1: every first request passes
    const second = await refusedOn(fastify);
    const third = await refusedOn(express);
    // Some subjects are staged in (refused), some out (shadow: through).
    expect(second.length).toBeGreaterThan(USERS / 5);
    expect(second.length).toBeLessThan(USERS - USERS / 5);
    expect(third).toEqual(second);
    const text = await (await fetch(`${express.url}/metrics`)).text();
    const shadow = sample(text, 'rampart_ratelimit_decisions_total', {
      policy: 'rl-infer',
      outcome: 'shadow_rejected',
    });
    expect(shadow).toBe(USERS - third.length);
  });

  it('should only count, never refuse, on an instance outside the stage', async () => {
    for (const app of apps) {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await get(app, 'one-user'));
      expect(statuses).toEqual([200, 200, 200]);
      const text = await (await fetch(`${app.url}/metrics`)).text();
      expect(
        sample(text, 'rampart_ratelimit_decisions_total', {
          policy: 'rl-admin',
          outcome: 'shadow_rejected',
        }),
      ).toBeGreaterThanOrEqual(2);
    }
  });
});
