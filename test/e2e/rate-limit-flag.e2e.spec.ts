import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

/** Memory store always; the Lua store too whenever the suite has a Redis. */
const STORES: { store: string; env: () => Record<string, string> }[] = [
  { store: 'memory', env: () => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: () => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('rlf'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

interface Answer {
  duplicate: boolean;
  limited?: { retryAfterMs: number; rule: string; notify: boolean };
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'rate-limit claims, conditions and onLimit flag over HTTP ($adapter, $store store)',
  ({ adapter, env }) => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await startApp(
        { HTTP_ADAPTER: adapter, ...env() },
        { search: 'empty', imports: [RateLimitRoutesModule], config: withRateLimitPolicies({}) },
      );
    });
    afterAll(() => app?.close());

    const send = async (updateId: number, role?: string): Promise<Answer> => {
      const res = await fetch(`${app.url}/rl-test/update`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(role ? { 'x-test-role': role } : {}) },
        body: JSON.stringify({ update_id: updateId }),
      });
      // onLimit flag: never a 429, whatever the decision.
      expect(res.status).toBe(200);
      return (await res.json()) as Answer;
    };

    it('should mark a duplicate without charging it, flag refusals without a 429 and notify once per window', async () => {
      expect(await send(1)).toEqual({ duplicate: false });
      expect(await send(1)).toEqual({ duplicate: true });
      // The duplicate took no token: the second of two still fits.
      expect(await send(2)).toEqual({ duplicate: false });
      const first = await send(3);
      expect(first.duplicate).toBe(false);
      expect(first.limited).toMatchObject({ rule: 'rl-update.per-ip', notify: true });
      expect(first.limited!.retryAfterMs).toBeGreaterThan(0);
      expect(first.limited!.retryAfterMs).toBeLessThanOrEqual(60_000);
      expect((await send(4)).limited).toMatchObject({ rule: 'rl-update.per-ip', notify: false });
      // A limited update was claimed all the same: its redelivery is a duplicate.
      expect(await send(3)).toEqual({ duplicate: true });
      // unless: {rlTestRole: [admin]} — the rule does not apply to admins.
      expect(await send(5, 'admin')).toEqual({ duplicate: false });
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toMatch(
        /rampart_ratelimit_decisions_total\{policy="rl-update",rule="rl-test-update",outcome="duplicate"\} 2/,
      );
      expect(metrics).toMatch(
        /rampart_ratelimit_decisions_total\{policy="rl-update",rule="per-ip",outcome="rejected"\} 2/,
      );
    });
  },
);
