/**
 * The front door (docs/rate-limit.md#front-door), both adapters, two instances on one Redis: what the
 * rate-limit lock knows to refuse from memory is answered before the body is read. Each request below
 * announces a body (Content-Length) and never sends it: the usual way would wait for that body and end in
 * 408 `request_timeout` (HTTP_BODY_IDLE_TIMEOUT_MS); refused at the front door, it gets the lock's own
 * answer at once — 403 `banned` for a globally banned address, 429 `rate_limited` with its headers for an
 * unsigned request whose per-address bucket the deny cache holds — counted as the lock's refusals, with no
 * address in /metrics. Another address takes the usual way.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp } from '../support/app.js';
import { useBanInstances } from '../support/ban-instances.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';

const BANNED = '203.0.113.91';
const EMPTY = '198.51.100.23';
const OTHER = '192.0.2.44';

const policies = withRateLimitPolicies({
  infer: {
    mode: 'enforce',
    rules: [{ name: 'per-ip', dimension: 'ip', capacity: 1, rate: '1/h' }],
  },
});

/** POST /rl-test/infer from `ip`, the body announced (64 bytes) and `body` sent or withheld. */
function post(
  on: RunningApp,
  ip: string,
  body: boolean,
): Promise<{ status: number; head: string; json: Record<string, unknown> }> {
  const { port } = new URL(on.url);
  const payload = JSON.stringify({ pad: 'x'.repeat(53) });
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      got += c;
      const end = got.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)/i.exec(got.slice(0, end))?.[1];
      if (end < 0 || len === undefined || Buffer.byteLength(got.slice(end + 4)) < Number(len))
        return;
      socket.destroy();
      resolve({
        status: Number(got.slice(9, 12)),
        head: got.slice(0, end).toLowerCase(),
        json: JSON.parse(got.slice(end + 4)) as Record<string, unknown>,
      });
    });
    // An answer without Content-Length (the 408 closes the connection): its status is what is read.
    socket.on('close', () =>
      resolve({ status: Number(got.slice(9, 12)), head: got.toLowerCase(), json: {} }),
    );
    socket.on('error', reject);
    socket.write(
      'POST /rl-test/infer HTTP/1.1\r\nHost: rampart.test\r\nContent-Type: application/json\r\n' +
        `X-Forwarded-For: ${ip}\r\nContent-Length: ${payload.length}\r\n\r\n${body ? payload : ''}`,
    );
  });
}

const counter = async (on: RunningApp, re: RegExp): Promise<{ n: number; text: string }> => {
  const text = await fetch(`${on.url}/metrics`).then((r) => r.text());
  return { n: Number(re.exec(text)?.[1] ?? 0), text };
};
const BANNED_COUNT =
  /rampart_ratelimit_banned_total\{policy="rl-infer",dimension="ip",outcome="refused"\} (\d+)/;
const REJECTED =
  /rampart_lock_decisions_total\{lock="rateLimit",policy="rl-infer",outcome="rejected"\} (\d+)/;

describe.skipIf(!canStartRedis()).each(ADAPTERS)('front door (%s)', (adapter) => {
  const two = useBanInstances(
    adapter,
    {
      RAMPART_ENV: uniqueEnv('front'),
      TRUSTED_PROXIES: '127.0.0.1/32,::1/128',
      HTTP_BODY_IDLE_TIMEOUT_MS: '1500',
    },
    { imports: [RateLimitRoutesModule], config: policies },
  );

  it('should take the usual way for an address it knows nothing of (the withheld body times out)', async () => {
    expect((await post(two.a, OTHER, false)).status).toBe(408);
  });

  it('should refuse a globally banned address before reading the body', async () => {
    const set = await two.adminA.call<{ id: string }>('POST', '/admin/bans', {
      dimension: 'ip',
      subject: BANNED,
      global: true,
      ttlSeconds: 600,
    });
    expect(set.status).toBe(201);
    await eventually(
      () => post(two.b, BANNED, true).then((r) => r.status),
      (s) => s === 403,
      2_000,
    );
    const before = await counter(two.b, BANNED_COUNT);
    const r = await post(two.b, BANNED, false);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ error: 'banned' });
    expect(r.head).toContain('retry-after:');
    expect(r.head).toContain('x-request-id:');
    const after = await counter(two.b, BANNED_COUNT);
    expect(after.n - before.n).toBe(1);
    expect(after.text).not.toContain(BANNED);
  });

  it('should refuse an unsigned request whose per-address bucket is known empty before reading the body', async () => {
    expect((await post(two.a, EMPTY, true)).status).toBe(200);
    // The store refuses the second one, and the deny cache learns the bucket's retry time.
    expect((await post(two.a, EMPTY, true)).status).toBe(429);
    const before = await counter(two.a, REJECTED);
    const r = await post(two.a, EMPTY, false);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ error: 'rate_limited', policy: 'rl-infer.per-ip' });
    expect(r.head).toMatch(/retry-after: \d+/);
    expect(r.head).toContain('ratelimit-policy:');
    const after = await counter(two.a, REJECTED);
    expect(after.n - before.n).toBe(1);
    expect(after.text).not.toContain(EMPTY);
    // The other instance has not learnt it: the usual way (its store refuses once the body came).
    expect((await post(two.b, EMPTY, true)).status).toBe(429);
  });
});
