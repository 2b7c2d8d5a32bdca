/**
 * Embedded mode's memory is bounded (issue 29): with the memory store full of buckets that have not
 * refilled, a new subject is answered 503 rather than given a bucket taken from another subject, and
 * a subject already held keeps its (spent) quota.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';

const get = (app: RunningApp, ip: string): Promise<Response> =>
  fetch(`${app.url}/rl-test/plain`, { headers: { 'x-forwarded-for': ip } });

describe.each(ADAPTERS)('memory store bounds (%s)', (adapter) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, TRUSTED_PROXIES: '127.0.0.1/32,::1/128' },
      {
        search: 'empty',
        imports: [RateLimitRoutesModule],
        // per-ip: 3, then one a minute (a key lives ~3 min); room for 10 keys
        config: withRateLimitPolicies({}, { rateLimit: { memory: { entries: 10 } } }),
      },
    );
  });
  afterAll(() => app?.close());

  it('should refuse a new subject with 503 when full, and never refill a held subject', async () => {
    const first = [];
    for (let i = 1; i <= 10; i++) first.push((await get(app, `198.51.100.${i}`)).status);
    expect(first).toEqual(Array(10).fill(200));
    const refused = await get(app, '198.51.100.11');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: string }).error).toBe('rate_limit_unavailable');
    // 198.51.100.1 spent one of its 3: two more, then 429 — its bucket was not dropped for the newcomer.
    const held = [];
    for (let i = 0; i < 3; i++) held.push((await get(app, '198.51.100.1')).status);
    expect(held).toEqual([200, 200, 429]);
    const metrics = await fetch(`${app.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/rampart_memory_store_refusals_total\{store="rate_limit"\} [1-9]/);
    expect(metrics).toMatch(/rampart_memory_store_entries\{store="rate_limit"\} \d+/);
  });
});
