import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitPeers } from '../../src/locks/rate-limit/store/lanes/rate-limit-peers.service.js';
import { RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

async function until(cond: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every request must complete: a generous overall bound, never a duration assertion. */
function get(url: string): Promise<Response> {
  return fetch(url, { signal: AbortSignal.timeout(10_000) });
}
const post = (url: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user-id': 'u1' },
    body: '{}',
    signal: AbortSignal.timeout(10_000),
  });

const config = withRateLimitPolicies(
  {
    // local: limit ÷ live instances while Redis is down
    plain: {
      mode: 'enforce',
      failMode: 'local',
      rules: [{ name: 'per-ip', dimension: 'ip', capacity: 4, rate: '1/h' }],
    },
    // closed: 503 + Retry-After
    infer: {
      mode: 'enforce',
      failMode: 'closed',
      rules: [{ name: 'per-user', dimension: 'user', capacity: 1000, rate: '1/s' }],
    },
    // open: through, counted
    admin: {
      mode: 'enforce',
      failMode: 'open',
      rules: [{ name: 'per-ip', dimension: 'ip', capacity: 1000, rate: '1/s' }],
    },
  },
  { rateLimit: { heartbeat: '1s', probeAfter: '100ms', userHeader: 'x-user-id' } },
);

describe.skipIf(!canStartRedis())('rate limit when its Redis dies and comes back', () => {
  let server: RedisProcess;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    server = await startRedis();
    const env = {
      REDIS_URL: server.url,
      RAMPART_ENV: uniqueEnv('rlo'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      REDIS_MAX_RECONNECT_DELAY_MS: '200',
    };
    for (const adapter of ['express', 'fastify'])
      apps.push(
        await startApp(
          { ...env, HTTP_ADAPTER: adapter },
          { search: 'empty', imports: [RateLimitRoutesModule], config },
        ),
      );
    await until(() => apps.every((a) => a.app.get(RateLimitPeers).liveInstances === 2));
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await server?.stop();
  });

  it('should apply each failMode while Redis is down, without hanging, and recover by itself', async () => {
    const [a, b] = apps as [RunningApp, RunningApp];
    expect((await post(`${a.url}/rl-test/infer`)).status).toBe(200);
    await server.kill();

    // closed → 503 with Retry-After
    const closed = await post(`${a.url}/rl-test/infer`);
    expect(closed.status).toBe(503);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect(((await closed.json()) as { error: string }).error).toBe('rate_limit_unavailable');
    // open → through
    expect((await get(`${b.url}/rl-test/admin`)).status).toBe(200);
    // local → capacity 4 ÷ 2 live instances = 2 per instance
    for (const app of [a, b]) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await get(`${app.url}/rl-test/plain`)).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
    }
    const metrics = await (await get(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(
      /rampart_ratelimit_fallback_total\{policy="rl-plain",mode="local"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /rampart_ratelimit_fallback_total\{policy="rl-infer",mode="closed"\} [1-9]/,
    );

    await server.start();
    await until(async () => (await post(`${a.url}/rl-test/infer`)).status === 200);
    await until(async () => (await post(`${b.url}/rl-test/infer`)).status === 200);
    // Back on Redis: the RateLimit fields come from the shared bucket again.
    expect((await post(`${b.url}/rl-test/infer`)).headers.get('ratelimit')).toMatch(
      /^"rl-infer\.per-user";r=\d+;t=\d+$/,
    );
  });

  it('should answer every request when Redis hangs (paused): the command timeout, then the failMode', async () => {
    const [a] = apps as [RunningApp];
    server.pause();
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => post(`${a.url}/rl-test/infer`).then((r) => r.status)),
      );
      expect(results.every((s) => s === 503)).toBe(true);
    } finally {
      server.resume();
    }
    await until(async () => (await post(`${a.url}/rl-test/infer`)).status === 200);
  });
});
