import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

type Slices = Parameters<typeof withRateLimitPolicies>[0];

/** Memory store always; the Lua store too whenever the suite has a Redis (CI always does). */
const STORES: { store: string; env: () => Record<string, string> }[] = [
  { store: 'memory', env: () => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: () => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('rle'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'rate-limit lock over HTTP ($adapter, $store store)',
  ({ adapter, env }) => {
    let app: RunningApp | undefined;
    const start = async (
      slices: Slices = {},
      sections: Record<string, unknown> = {},
    ): Promise<RunningApp> => {
      app = await startApp(
        { HTTP_ADAPTER: adapter, ...env() },
        {
          search: 'empty',
          imports: [RateLimitRoutesModule],
          config: withRateLimitPolicies(slices, sections),
        },
      );
      return app;
    };
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('should answer 429 problem+json with Retry-After and the IETF RateLimit fields once a rule is exhausted', async () => {
      const a = await start();
      const ok = await fetch(`${a.url}/rl-test/plain`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-policy')).toBe('"rl-plain.per-ip";q=3;w=180');
      expect(ok.headers.get('ratelimit')).toMatch(/^"rl-plain\.per-ip";r=2;t=\d+$/);
      await fetch(`${a.url}/rl-test/plain`);
      await fetch(`${a.url}/rl-test/plain`);
      const res = await fetch(`${a.url}/rl-test/plain`);
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const retry = res.headers.get('retry-after');
      expect(retry).toMatch(/^\d+$/);
      expect(Number(retry)).toBeGreaterThanOrEqual(59);
      expect(Number(retry)).toBeLessThanOrEqual(60);
      expect(res.headers.get('ratelimit-policy')).toBe('"rl-plain.per-ip";q=3;w=180');
      expect(res.headers.get('ratelimit')).toBe(`"rl-plain.per-ip";r=0;t=${retry}`);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        status: 429,
        error: 'rate_limited',
        retry_after: Number(retry),
        policy: 'rl-plain.per-ip',
        'violated-policies': ['rl-plain.per-ip'],
      });
      // Decided by the store under test, never by a failMode.
      expect(await (await fetch(`${a.url}/metrics`)).text()).not.toMatch(
        /rampart_ratelimit_fallback_total\{/,
      );
    });

    it('should charge an inference request by its max_tokens band and count only a configured user header', async () => {
      const a = await start({}, { rateLimit: { userHeader: 'x-user-id' } });
      const post = (maxTokens: number, user?: string): Promise<Response> =>
        fetch(`${a.url}/rl-test/infer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(user ? { 'x-user-id': user } : {}) },
          body: JSON.stringify({ max_tokens: maxTokens }),
        });
      const first = await post(4096, 'alice');
      expect(first.headers.get('ratelimit')).toMatch(/r=6;/);
      const second = await post(5000, 'alice');
      expect(second.status).toBe(429);
      const bob = await post(5000, 'bob');
      expect(bob.status).toBe(200);
      expect(bob.headers.get('ratelimit')).toMatch(/r=2;/);
      // No user → the rule is skipped: allowed, without RateLimit fields.
      const anon = await post(5000);
      expect(anon.status).toBe(200);
      expect(anon.headers.get('ratelimit')).toBeNull();
      const metrics = await (await fetch(`${a.url}/metrics`)).text();
      expect(metrics).toMatch(
        /rampart_ratelimit_skipped_total\{policy="rl-infer",rule="per-user",dimension="user"\} 1/,
      );
    });

    it('should not trust a user header that is not configured', async () => {
      const a = await start();
      const res = await fetch(`${a.url}/rl-test/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user-id': 'mallory' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
    });

    it('should count a shadow rule as "would have blocked" and never block with it', async () => {
      const a = await start({
        plain: {
          mode: 'enforce',
          rules: [
            { name: 'strict', dimension: 'ip', capacity: 1, rate: '1/h', mode: 'shadow' },
            { name: 'loose', dimension: 'ip', capacity: 100, rate: '1/s' },
          ],
        },
      });
      for (let i = 0; i < 4; i++) expect((await fetch(`${a.url}/rl-test/plain`)).status).toBe(200);
      const metrics = await (await fetch(`${a.url}/metrics`)).text();
      expect(metrics).toMatch(
        /rampart_ratelimit_decisions_total\{policy="rl-plain",rule="strict",outcome="shadow_rejected"\} 3/,
      );
      expect(metrics).toMatch(
        /rampart_ratelimit_decisions_total\{policy="rl-plain",rule="loose",outcome="allowed"\} 4/,
      );
    });

    it('should degrade before it rejects and keep critical routes out of global shedding', async () => {
      const a = await start({
        plain: {
          mode: 'enforce',
          degrade: { at: 0.4, factor: 1 },
          rules: [{ name: 'global', dimension: 'global', capacity: 4, rate: '1/h' }],
        },
      });
      const seen: boolean[] = [];
      for (let i = 0; i < 4; i++)
        seen.push(
          ((await (await fetch(`${a.url}/rl-test/plain`)).json()) as { degraded: boolean })
            .degraded,
        );
      expect(seen).toEqual([false, false, true, true]);
      expect((await fetch(`${a.url}/rl-test/plain`)).status).toBe(429);
      // rl-admin is critical: its global rule (capacity 1) is exempt.
      for (let i = 0; i < 3; i++) expect((await fetch(`${a.url}/rl-test/admin`)).status).toBe(200);
    });

    it('should cap everything with the emergency fuse, except critical routes', async () => {
      const a = await start(
        {
          plain: {
            mode: 'enforce',
            rules: [{ name: 'per-ip', dimension: 'ip', capacity: 100, rate: '10/s' }],
          },
        },
        { rateLimit: { fuse: { limit: 2, window: '60s' } } },
      );
      expect((await fetch(`${a.url}/rl-test/plain`)).status).toBe(200);
      expect((await fetch(`${a.url}/rl-test/plain`)).status).toBe(200);
      const res = await fetch(`${a.url}/rl-test/plain`);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { policy: string }).policy).toBe('fuse');
      expect((await fetch(`${a.url}/rl-test/admin`)).status).toBe(200);
    });
  },
);
