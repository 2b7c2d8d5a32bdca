/**
 * A verified subject behind a shared address (docs/quotas.md#verified-subjects-behind-a-shared-address), on both
 * adapters and both stores: one bad actor's 10 refused requests put the address in band ×0.2, and a fresh,
 * well-behaved verified user on that address (a session key, or an app-signed user header) still gets its
 * per-user quota lowered by one band only (×0.5: 2 of 5), not cut to 1 of 5. A session key that expired within
 * its app's refreshGrace (a browser's normal refresh) is not a risk signal; one expired for longer still is.
 * Each case has its own address (X-Forwarded-For from a trusted proxy).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { deriveSessionKey, sessionKeyCredentials, signRequest } from '../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import {
  SessionKeyRoutesModule,
  sessionKeyApps,
  withSessionKeyPolicy,
} from '../support/session-key-routes.js';

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('shaddr'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/** `sk-user` with 5 requests per user (no refill within the test) and a roomy per-address rule (scored). */
function withSharedAddressPolicy(c: RampartConfig): RampartConfig {
  const base = withSessionKeyPolicy(c);
  const policy = base.policies['sk-user']!;
  return {
    ...base,
    policies: {
      ...base.policies,
      'sk-user': {
        ...policy,
        locks: {
          ...policy.locks,
          rateLimit: {
            mode: 'enforce',
            failMode: 'local',
            rules: [
              { name: 'per-user', dimension: 'user', capacity: 5, rate: '1/h' },
              { name: 'per-ip', dimension: 'ip', capacity: 500, rate: '50/s' },
            ],
          },
        },
      },
    },
  };
}

interface IpView {
  multiplier: number;
  signals: Record<string, { count: number }>;
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'a verified user behind a shared address ($adapter, $store store)',
  ({ adapter, env }) => {
    const apps = sessionKeyApps();
    let app: RunningApp;
    let admin: AdminClient;

    beforeAll(async () => {
      app = await startApp(
        {
          HTTP_ADAPTER: adapter,
          APPS_FILE: apps.file,
          ADMIN_TOKEN,
          TRUSTED_PROXIES: '127.0.0.1/32,::1/128',
          ...env(),
        },
        { search: 'empty', imports: [SessionKeyRoutesModule], config: withSharedAddressPolicy },
      );
      admin = new AdminClient(app);
    });
    afterAll(() => app?.close());

    const url = () => `${app.url}/sk-test/user`;
    const send = async (from: string, headers: Record<string, string>) => {
      const res = await fetch(url(), { headers: { ...headers, 'x-forwarded-for': from } });
      const body = (await res.json()) as { error?: string };
      return { status: res.status, error: body.error };
    };
    /** A request signed with a session key of `user`, issued `agoS` seconds ago for `ttlS` seconds. */
    const bySession = (from: string, user: string, o: { agoS?: number; ttlS?: number } = {}) => {
      const key = deriveSessionKey(apps.web, {
        appId: 'sk-web',
        user,
        scope: ['sk-user'],
        ttl: `${o.ttlS ?? 120}s`,
        now: Date.now() - (o.agoS ?? 0) * 1000,
      });
      return send(from, signRequest({ ...sessionKeyCredentials(key), method: 'GET', url: url() }));
    };
    const byHeader = (from: string, user: string) =>
      send(from, {
        ...signRequest({ appId: 'sk-web', secret: apps.web, method: 'GET', url: url() }),
        'x-user-id': user,
      });
    const forged = (from: string, i: number) =>
      send(from, {
        'x-app-id': 'sk-web',
        'x-timestamp': String(Date.now()),
        'x-nonce': `forged-${i}-${Math.random()}`,
        'x-signature': '0'.repeat(64),
      });
    const ipView = (ip: string) => admin.get<IpView>(`/admin/subjects/ip/${ip}`);
    const badSignatures = (ip: string) =>
      ipView(ip).then((r) => r.body.signals.bad_signature?.count ?? 0);

    it.each([
      ['session', '203.0.113.10'],
      ['header', '203.0.113.11'],
    ] as const)(
      'should lower a fresh verified user (%s) by one band only after 10 bad requests from its address',
      async (how, ip) => {
        for (let i = 0; i < 10; i++) expect((await forged(ip, i)).status).toBe(401);
        // Observations are written a few ms after the answers: 10 new + 10 × 5 = 60 points, band ×0.2.
        const seen = await eventually(
          () => ipView(ip),
          (r) => r.body.signals.bad_signature?.count === 10,
          2_000,
          10,
        );
        expect(seen.body.multiplier).toBe(0.2);
        const user = `fresh-${how}-${adapter}`;
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++)
          statuses.push(
            (how === 'session' ? await bySession(ip, user) : await byHeader(ip, user)).status,
          );
        // Its own record (new: 10 points) is band ×1; the misbehaving address takes one band: ×0.5 of 5.
        expect(statuses).toEqual([200, 200, 429, 429, 429]);
      },
    );

    it('should not score a key_expired within the app refreshGrace (300 s), and score one past it', async () => {
      const ip = '203.0.113.20';
      expect((await byHeader(ip, 'grace-user')).status).toBe(200);
      // Expired 60 s ago (issued 180 s ago for 120 s): a browser refreshing its key.
      for (let i = 0; i < 3; i++) {
        const r = await bySession(ip, 'grace-user', { agoS: 180 });
        expect(r).toEqual({ status: 401, error: 'key_expired' });
      }
      // Expired 480 s ago: past the grace, a signal.
      expect(await bySession(ip, 'grace-user', { agoS: 600 })).toEqual({
        status: 401,
        error: 'key_expired',
      });
      // Signals are queued in order: once the last one shows, the earlier ones would have too.
      await eventually(
        () => badSignatures(ip),
        (n) => n >= 1,
        2_000,
        10,
      );
      expect(await badSignatures(ip)).toBe(1);
    });
  },
);
