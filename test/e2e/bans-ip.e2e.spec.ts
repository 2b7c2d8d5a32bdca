/**
 * IP bans (docs/rate-limit.md#bans) on two instances sharing one Redis, both adapters: an address
 * banned through the admin API on one instance gets 403 `banned` on the other (X-Forwarded-For from a
 * trusted proxy names it), another address passes, and lifting the ban lets it through again. Each
 * refusal is counted in `rampart_ratelimit_banned_total` by policy and dimension, never by address.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp } from '../support/app.js';
import { useBanInstances } from '../support/ban-instances.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';

const BANNED = '203.0.113.77';
const OTHER = '198.51.100.8';

/** Room for every call of this file: the limit is not what is tested. */
const policies = withRateLimitPolicies({
  plain: {
    mode: 'enforce',
    rules: [{ name: 'per-ip', dimension: 'ip', capacity: 1_000, rate: '1/min' }],
  },
});

const bannedCount = async (on: RunningApp): Promise<{ count: number; text: string }> => {
  const text = await fetch(`${on.url}/metrics`).then((r) => r.text());
  const line =
    /rampart_ratelimit_banned_total\{policy="rl-plain",dimension="ip",outcome="refused"\} (\d+)/;
  return { count: Number(line.exec(text)?.[1] ?? 0), text };
};

describe.skipIf(!canStartRedis()).each(ADAPTERS)('ip bans on two instances (%s)', (adapter) => {
  const two = useBanInstances(
    adapter,
    { RAMPART_ENV: uniqueEnv('banip'), TRUSTED_PROXIES: '127.0.0.1/32,::1/128' },
    { imports: [RateLimitRoutesModule], config: policies },
  );

  const status = async (on: RunningApp, ip: string): Promise<number> => {
    const res = await fetch(`${on.url}/rl-test/plain`, { headers: { 'x-forwarded-for': ip } });
    await res.arrayBuffer();
    return res.status;
  };

  it('should refuse the banned address on the other instance, pass another, and pass it once lifted', async () => {
    expect(await status(two.b, BANNED)).toBe(200);
    const set = await two.adminA.call<{ id: string }>('POST', '/admin/bans', {
      dimension: 'ip',
      subject: BANNED,
      global: true,
      ttlSeconds: 600,
      reason: 'scraping',
    });
    expect(set.status).toBe(201);
    expect(set.text).not.toContain(BANNED);
    await eventually(
      () => status(two.b, BANNED),
      (s) => s === 403,
      2_000,
    );
    const before = (await bannedCount(two.b)).count;
    const res = await fetch(`${two.b.url}/rl-test/plain`, {
      headers: { 'x-forwarded-for': BANNED },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'banned', reason: 'scraping' });
    expect(await status(two.a, BANNED)).toBe(403);
    // Another address, and the banned one as a hop an untrusted client wrote before the real one, pass.
    expect(await status(two.b, OTHER)).toBe(200);
    expect(await status(two.a, `${BANNED}, ${OTHER}`)).toBe(200);
    const after = await bannedCount(two.b);
    expect(after.count - before).toBe(1);
    expect(after.text).not.toContain(BANNED);

    const lift = await two.adminB.call('DELETE', `/admin/bans/${set.body.id}`);
    expect(lift.status).toBe(200);
    await eventually(
      () => status(two.a, BANNED),
      (s) => s === 200,
      2_000,
    );
    expect(await status(two.b, BANNED)).toBe(200);
  });
});
