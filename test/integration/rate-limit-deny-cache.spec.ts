import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';

describe.skipIf(!canStartRedis())('rate-limit local deny cache (private redis-server)', () => {
  let server: RedisProcess;
  let app: RunningApp;
  const scriptCalls = (): number => {
    const m = /cmdstat_evalsha:calls=(\d+)/.exec(execFileSync('redis-cli', ['-p', String(server.port), 'INFO', 'commandstats'], { encoding: 'utf8' }));
    return m ? Number(m[1]) : 0;
  };

  beforeAll(async () => {
    server = await startRedis();
    app = await startApp(
      { REDIS_URL: server.url, RAMPART_ENV: uniqueEnv('rld') },
      { imports: [RateLimitRoutesModule], config: withRateLimitPolicies({ plain: { mode: 'enforce', rules: [{ name: 'per-ip', dimension: 'ip', capacity: 1, rate: '1/h' }] } }) },
    );
  });
  afterAll(async () => {
    await app?.close();
    await server?.stop();
  });

  it('should refuse a known-blocked subject in-process, without a Redis call, until its retry time', async () => {
    // The admitting call already says the bucket is empty until its next token: no further Redis call.
    expect((await fetch(`${app.url}/rl-test/plain`)).status).toBe(200);
    const before = scriptCalls();
    expect((await fetch(`${app.url}/rl-test/plain`)).status).toBe(429);
    const statuses = await Promise.all(Array.from({ length: 50 }, () => fetch(`${app.url}/rl-test/plain`).then((r) => r.status)));
    expect(statuses.every((s) => s === 429)).toBe(true);
    expect(scriptCalls()).toBe(before);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/rampart_ratelimit_deny_cache_hits_total\{policy="rl-plain"\} 51/);
  });
});
