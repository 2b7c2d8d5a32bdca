import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

describe.skipIf(!canStartRedis())('rate-limit local deny cache (private redis-server)', () => {
  let server: RedisProcess;
  let app: RunningApp;
  /** Calls of the decision script so far, as the app's own Redis metrics count them (other modules run scripts too). */
  const decideCalls = async (): Promise<number> => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const m = /rampart_redis_script_seconds_count\{script="ratelimit_decide"\} (\d+)/.exec(text);
    return m ? Number(m[1]) : 0;
  };

  beforeAll(async () => {
    server = await startRedis();
    app = await startApp(
      // A generous timeout: on a loaded machine a call must not turn into a fallback.
      { REDIS_URL: server.url, RAMPART_ENV: uniqueEnv('rld'), REDIS_COMMAND_TIMEOUT_MS: '5000' },
      {
        search: 'empty',
        imports: [RateLimitRoutesModule],
        config: withRateLimitPolicies({
          plain: {
            mode: 'enforce',
            rules: [{ name: 'per-ip', dimension: 'ip', capacity: 1, rate: '1/h' }],
          },
          // Strikes live 2 s: Redis alone (about one refusal a second behind the deny cache) never reaches 3.
          admin: {
            mode: 'enforce',
            rules: [
              {
                name: 'per-ip',
                dimension: 'ip',
                capacity: 2,
                rate: '1/s',
                penalty: { threshold: 3, factor: 0.5, decay: '2s' },
              },
            ],
          },
        }),
      },
    );
  });
  afterAll(async () => {
    await app?.close();
    await server?.stop();
  });

  it('should refuse a known-blocked subject in-process, without a Redis call, until its retry time', async () => {
    // The admitting call already says the bucket is empty until its next token: no further Redis call.
    expect((await fetch(`${app.url}/rl-test/plain`)).status).toBe(200);
    const before = await decideCalls();
    expect(before).toBe(1);
    expect((await fetch(`${app.url}/rl-test/plain`)).status).toBe(429);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => fetch(`${app.url}/rl-test/plain`).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 429)).toBe(true);
    expect(await decideCalls()).toBe(before);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/rampart_ratelimit_deny_cache_hits_total\{policy="rl-plain"\} 51/);
  });

  it('should hand the refusals it answered locally to Redis as penalty strikes', async () => {
    const get = (): Promise<Response> => fetch(`${app.url}/rl-test/admin`);
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const refused = await Promise.all(Array.from({ length: 20 }, () => get()));
    expect(
      refused.every(
        (r) =>
          r.status === 429 && r.headers.get('ratelimit-policy') === '"rl-admin.per-ip";q=2;w=2',
      ),
    ).toBe(true);
    // The next decision in Redis carries those 20 strikes (capped): the quota collapses to its floor.
    const deadline = Date.now() + 10_000;
    let policy = '';
    while (!policy.includes('q=0') && Date.now() < deadline) {
      policy = (await get()).headers.get('ratelimit-policy') ?? '';
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(policy).toBe('"rl-admin.per-ip";q=0;w=2');
  });
});
