/**
 * failMode `queue` (docs/rate-limit.md#when-redis-fails): with the test's own redis-server killed,
 * a request waits for Redis (bounded) and is decided there when it comes back within the wait; past
 * the wait, or with the queue full, the policy's fallback (`then`) decides. Both adapters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisWaitRoom } from '../../src/locks/rate-limit/limiter/redis-wait-room.js';
import { RunningApp, startApp } from '../support/app.js';
import { sample } from '../support/metrics-sample.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

async function until(cond: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const post = (url: string, user: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user-id': user },
    body: '{}',
    signal: AbortSignal.timeout(30_000),
  });

const config = withRateLimitPolicies(
  {
    // Waits up to 20 s for Redis, then closed (503): a 200 while Redis was down can only come from Redis.
    infer: {
      mode: 'enforce',
      failMode: 'queue',
      failQueue: { maxWait: '20s', then: 'closed' },
      rules: [{ name: 'per-user', dimension: 'user', capacity: 3, rate: '1/h' }],
    },
    // Waits 200 ms, then closed.
    admin: {
      mode: 'enforce',
      failMode: 'queue',
      failQueue: { maxWait: '200ms', then: 'closed' },
      rules: [{ name: 'per-ip', dimension: 'ip', capacity: 1000, rate: '1/s' }],
    },
  },
  {
    rateLimit: { probeAfter: '50ms', userHeader: 'x-user-id', failQueueMax: 4, failQueuePerApp: 4 },
  },
);

describe.skipIf(!canStartRedis())(
  'rate limit failMode queue: waits for Redis, then falls back',
  () => {
    let server: RedisProcess;
    const apps: RunningApp[] = [];

    beforeAll(async () => {
      server = await startRedis();
      const env = {
        REDIS_URL: server.url,
        RAMPART_ENV: uniqueEnv('rlq'),
        REDIS_COMMAND_TIMEOUT_MS: '500',
        REDIS_MAX_RECONNECT_DELAY_MS: '100',
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
      await server?.stop();
    });

    it('should hold requests while Redis is down and decide them on Redis when it is back', async () => {
      for (const a of apps) expect((await post(`${a.url}/rl-test/infer`, 'warm')).status).toBe(200);
      await server.kill();
      // Two on each instance for one user: they wait (the fallback would be 503).
      const pending = apps.flatMap((a) => [0, 1].map(() => post(`${a.url}/rl-test/infer`, 'u1')));
      await until(() => apps.every((a) => a.app.get(RedisWaitRoom).waiting === 2));
      await server.start();
      const statuses = await Promise.all(pending.map((p) => p.then((r) => r.status)));
      // Decided on Redis, one bucket for both instances: capacity 3 of the 4.
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(1);
      for (const a of apps) {
        const text = await (await fetch(`${a.url}/metrics`)).text();
        expect(
          sample(text, 'rampart_ratelimit_fail_queue_total', {
            policy: 'rl-infer',
            outcome: 'redis',
          }),
        ).toBe(2);
      }
    });

    it('should answer with the fallback when the wait runs out or the queue is full', async () => {
      const [a] = apps as [RunningApp];
      await until(async () => (await fetch(`${a.url}/rl-test/admin`)).status === 200);
      await server.kill();
      let up = false;
      try {
        // The 200 ms wait runs out: then closed.
        const late = await fetch(`${a.url}/rl-test/admin`);
        expect(late.status).toBe(503);
        expect(((await late.json()) as { error: string }).error).toBe('rate_limit_unavailable');
        // failQueueMax 4: four wait on the 20 s policy, the fifth gets the fallback at once.
        const waiting = [0, 1, 2, 3].map((i) => post(`${a.url}/rl-test/infer`, `w${i}`));
        await until(() => a.app.get(RedisWaitRoom).waiting === 4);
        const full = await post(`${a.url}/rl-test/infer`, 'w4');
        expect(full.status).toBe(503);
        expect(a.app.get(RedisWaitRoom).waiting).toBe(4);
        const text = await (await fetch(`${a.url}/metrics`)).text();
        expect(
          sample(text, 'rampart_ratelimit_fail_queue_total', {
            policy: 'rl-admin',
            outcome: 'fallback',
          }),
        ).toBeGreaterThanOrEqual(1);
        expect(
          sample(text, 'rampart_ratelimit_fail_queue_total', {
            policy: 'rl-infer',
            outcome: 'full',
          }),
        ).toBe(1);
        await server.start();
        up = true;
        expect((await Promise.all(waiting)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
      } finally {
        if (!up) await server.start();
      }
    });
  },
);
