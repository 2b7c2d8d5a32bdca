/**
 * Paced bursts (docs/rate-limit.md#paced-bursts): a rule with `maxWaitMs` holds a burst that fits in the wait
 * (200, each later request held longer) and refuses the rest (429); another subject's request is never held
 * behind it; past `rateLimit.maxPaced` held requests a request that would wait gets 503 `pacing_full`.
 * Both adapters, both stores. Assertions go by counts, headers and order of completion, not by wall clock.
 * The four adapter × store cases run at the same time (most of their time is requests held by the product):
 * each starts its own app (own memory store, own Redis prefix, own metrics) and shares nothing with the others;
 * within a case the tests run one after the other.
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
            RAMPART_ENV: uniqueEnv('rlp'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/**
 * Per user: a burst of 1, one every `every` seconds, a request that fits within two intervals is held for its
 * slot. Intervals of seconds, so a burst that a loaded machine dispatches over a second still meets one bucket.
 */
const paced = (every: number) => ({
  mode: 'enforce' as const,
  rules: [
    {
      name: 'per-user',
      dimension: 'user' as const,
      capacity: 1,
      rate: `1/${every}s`,
      maxWaitMs: 2 * every * 1000,
    },
  ],
});

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'paced bursts over HTTP ($adapter, $store store)',
  { concurrent: true },
  ({ adapter, env }) => {
    let app: RunningApp | undefined;
    const start = async (every: number, maxPaced?: number): Promise<RunningApp> => {
      app = await startApp(
        { HTTP_ADAPTER: adapter, ...env() },
        {
          search: 'empty',
          imports: [RateLimitRoutesModule],
          config: withRateLimitPolicies(
            { plain: paced(every) },
            {
              rateLimit: {
                userHeader: 'x-user-id',
                ...(maxPaced === undefined ? {} : { maxPaced }),
              },
            },
          ),
        },
      );
      return app;
    };
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });
    const get = (a: RunningApp, user: string): Promise<Response> =>
      fetch(`${a.url}/rl-test/plain`, { headers: { 'x-user-id': user } });

    it.sequential(
      'should hold a burst that fits in the wait, refuse the rest, and never hold another user behind it',
      async () => {
        const a = await start(2);
        // Warm the route up (another user), so the burst below is dispatched at once.
        expect((await get(a, 'u0')).status).toBe(200);
        const done: string[] = [];
        const track = (label: string, p: Promise<Response>) =>
          p.then(async (res) => {
            done.push(label);
            return {
              label,
              status: res.status,
              paced: res.headers.get('x-ratelimit-paced-ms'),
              body: await res.text(),
            };
          });
        const burst = Array.from({ length: 5 }, (_, i) => track(`u1-${i}`, get(a, 'u1')));
        const other = await track('u2', get(a, 'u2'));
        const all = await Promise.all(burst);
        // One at once, two held (about 2 s and 4 s: within maxWaitMs), two past the wait: 429.
        const ok = all.filter((r) => r.status === 200);
        expect(ok).toHaveLength(3);
        const waits = ok.map((r) => Number(r.paced ?? 0)).sort((x, y) => x - y);
        expect(waits[0]).toBe(0);
        expect(waits[1]).toBeGreaterThan(0);
        expect(waits[2]).toBeGreaterThan(waits[1]!);
        expect(waits[2]).toBeLessThanOrEqual(4000);
        const refused = all.filter((r) => r.status === 429);
        expect(refused).toHaveLength(2);
        for (const r of refused)
          expect(JSON.parse(r.body)).toMatchObject({ error: 'rate_limited' });
        // The other user was admitted by its own bucket, at once: not held, done before u1's longest-held request.
        expect(other).toMatchObject({ status: 200, paced: null });
        const last = ok.find((r) => Number(r.paced) === waits[2])!;
        expect(done.indexOf('u2')).toBeLessThan(done.indexOf(last.label));
        const metrics = await (await fetch(`${a.url}/metrics`)).text();
        expect(metrics).toMatch(
          /rampart_ratelimit_paced_total\{policy="rl-plain",outcome="passed"\} 2/,
        );
        expect(metrics).toMatch(
          /rampart_ratelimit_paced_wait_seconds_count\{policy="rl-plain"\} 2/,
        );
        expect(metrics).toMatch(/rampart_ratelimit_paced_waiting 0/);
      },
    );

    it.sequential(
      'should answer 503 pacing_full past maxPaced held requests, and still admit a request that need not wait',
      async () => {
        // The held request waits about 5 s: time enough to see it hold the place on a loaded machine.
        const a = await start(5, 1);
        expect((await get(a, 'u1')).status).toBe(200);
        const heldReq = get(a, 'u1');
        // Wait (bounded) until that request holds the one place.
        for (let i = 0; i < 200; i++) {
          const m = await (await fetch(`${a.url}/metrics`)).text();
          if (/rampart_ratelimit_paced_waiting 1\b/.test(m)) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        const full = await get(a, 'u1');
        expect(full.status).toBe(503);
        expect(full.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await full.json()).toMatchObject({ status: 503, error: 'pacing_full' });
        // Another user's first request fits at once: decided without pacing, admitted.
        expect((await get(a, 'u2')).status).toBe(200);
        const held = await heldReq;
        expect(held.status).toBe(200);
        expect(Number(held.headers.get('x-ratelimit-paced-ms'))).toBeGreaterThan(0);
        const metrics = await (await fetch(`${a.url}/metrics`)).text();
        expect(metrics).toMatch(
          /rampart_ratelimit_paced_total\{policy="rl-plain",outcome="full"\} 1/,
        );
      },
    );
  },
);
