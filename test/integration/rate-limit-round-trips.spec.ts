import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, monitorCommands, startRedis } from '../support/redis-server.js';

/**
 * "One Redis round trip per request" with a claim and onLimit flag: every command the app sends with the
 * rate limiter's keys is watched with MONITOR on our own redis-server (commands inside a script are left out).
 */
describe.skipIf(!canStartRedis())(
  'rate limit with a claim and onLimit flag: Redis round trips',
  () => {
    let server: RedisProcess;
    let app: RunningApp;
    let monitor: { stop: () => void } | undefined;
    const env = uniqueEnv('rlrt');
    const seen: string[][] = [];
    const post = (id: number): Promise<Response> =>
      fetch(`${app.url}/rl-test/update`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ update_id: id }),
      });

    beforeAll(async () => {
      server = await startRedis();
      app = await startApp(
        { REDIS_URL: server.url, RAMPART_ENV: env, REDIS_COMMAND_TIMEOUT_MS: '2000' },
        {
          search: 'empty',
          imports: [RateLimitRoutesModule],
          config: withRateLimitPolicies({
            update: {
              mode: 'enforce',
              claim: 'rl-test-update',
              onLimit: 'flag',
              rules: [{ name: 'per-ip', dimension: 'ip', capacity: 3, rate: '1/min' }],
            },
          }),
        },
      );
      // The script is loaded by the first call that reaches Redis (EVALSHA refused, then EVAL): do that first.
      const probe = new Redis(server.url);
      for (let i = 0; i < 50; i++) {
        await post(1000 + i);
        if ((await probe.exists(`rl:{${env}:rampart}:claim:rl-test-update:${1000 + i}`)) === 1)
          break;
        await new Promise((r) => setTimeout(r, 50));
      }
      probe.disconnect();
      monitor = await monitorCommands(server.port, ({ args, source }) => {
        // The rate limiter's keys only: not the config poll (cfg:{…} keys), nor its own timers —
        // the instance heartbeat, the load level (`…:load`) and the risk records (`…:risk:…`,
        // written after the request in batches, off its path).
        const key = (a: string) => a.startsWith(`rl:{${env}:`);
        const loadLevel = args.includes(`rl:{${env}:rampart}:load`);
        const timerKey = (a: string) =>
          a === `rl:{${env}:rampart}:instances` ||
          a === `rl:{${env}:rampart}:keysecret` ||
          /^rl:\{[^}]+\}:riskc?:/.test(a);
        const ours = !loadLevel && args.some((a) => key(a) && !timerKey(a));
        // The admin sampler of Redis-side figures SCANs the keyspace now and then: not a decision.
        const sampler = args[0]?.toLowerCase() === 'scan';
        if (source !== 'lua' && ours && !sampler) seen.push(args);
      });
    });
    afterAll(async () => {
      monitor?.stop();
      await app?.close();
      await server?.stop();
    });

    it('should make exactly one call per request: allowed, duplicate, limited and told', async () => {
      const ids = [1, 1, 2, 3, 4, 3, 5, 6];
      for (const id of ids) expect((await post(id)).status).toBe(200);
      // MONITOR output trails the commands a little: wait until every request's call is in.
      for (let i = 0; i < 100 && seen.length < ids.length; i++)
        await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      expect(seen.map((a) => a[0]!.toLowerCase())).toEqual(ids.map(() => 'evalsha'));
      for (const args of seen) {
        // The claim and the bucket in the same call (the told key rides along for the flag).
        expect(args.some((a) => a.includes(':claim:rl-test-update:'))).toBe(true);
        expect(args.some((a) => a.includes(':told:'))).toBe(true);
      }
    });
  },
);
