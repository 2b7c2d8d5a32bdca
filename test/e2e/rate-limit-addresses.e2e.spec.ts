/**
 * Address hygiene of the ip dimension (issue 12), behind a trusted proxy:
 * every spelling of an IPv6 address is one subject, one /64 is one subject,
 * and a forwarded hop that is not an address falls back to the peer (counted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';

const get = (app: RunningApp, xff: string): Promise<Response> =>
  fetch(`${app.url}/rl-test/plain`, { headers: { 'x-forwarded-for': xff } });

describe.each(ADAPTERS)('ip dimension address hygiene (%s)', (adapter) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, TRUSTED_PROXIES: '127.0.0.1/32,::1/128' },
      { search: 'empty', imports: [RateLimitRoutesModule], config: withRateLimitPolicies({}) },
    );
  });
  afterAll(() => app?.close());

  it('should count every textual form of one IPv6 address against one quota', async () => {
    const forms = ['2001:db8::1', '2001:db8:0:0:0:0:0:1', '2001:DB8::1', '[2001:db8::1]:1234'];
    const statuses = [];
    for (const f of forms) statuses.push((await get(app, f)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('should give 80 addresses of one /64 a single quota, and another /64 its own', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 80; i++)
      statuses.push((await get(app, `2001:db8:aa:bb::${i.toString(16)}`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect((await get(app, '2001:db8:aa:cc::1')).status).toBe(200);
  });

  it('should use the peer for a forwarded hop that is not an address, and count it', async () => {
    const before = await fetch(`${app.url}/metrics`).then((r) => r.text());
    const count = (text: string): number =>
      Number(/rampart_ratelimit_forwarded_address_rejected_total (\d+)/.exec(text)?.[1] ?? 0);
    const statuses: number[] = [];
    for (const junk of ['abc', '010.001.001.001', 'not, an, address'])
      statuses.push((await get(app, junk)).status);
    // all three share the peer's (127.0.0.1) quota, which is fresh: 3 allowed, then refused
    expect(statuses).toEqual([200, 200, 200]);
    expect((await get(app, 'zzz')).status).toBe(429);
    const after = await fetch(`${app.url}/metrics`).then((r) => r.text());
    expect(count(after) - count(before)).toBe(4);
  });
});
