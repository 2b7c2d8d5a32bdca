/**
 * Risk scores over HTTP (docs/quotas.md), on both adapters and both stores:
 * a client that sends junk queries (bloom-absent answers) and bad signatures
 * has its per-IP search quota cut by its band, reads as such in
 * GET /admin/subjects/ip/<address>, and gets its quota back once the score
 * decayed (a short configured point decay, no long sleep); a reset is audited.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { ADMIN_TOKEN, AdminClient, eventually } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('qrk'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/** Scores that move fast: a point decays in 50 ms, at most 40 points (band ×0.5), no new-subject weight. */
const fastRisk = (c: RampartConfig): RampartConfig => ({
  ...c,
  sections: {
    ...c.sections,
    rateLimit: { risk: { pointDecay: '50ms', maxScore: 40, weights: { new_subject: 0 } } },
  },
});

/** The per-IP quota the search answer's RateLimit-Policy header shows (q=…). */
async function searchQuota(app: RunningApp): Promise<number> {
  const res = await fetch(`${app.url}/v1/search?q=rome`);
  expect(res.status).toBe(200);
  const m = /"search\.per-ip";q=(\d+)/.exec(res.headers.get('ratelimit-policy') ?? '');
  return Number(m?.[1] ?? NaN);
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'risk scores over HTTP ($adapter, $store store)',
  ({ adapter, env }) => {
    let app: RunningApp | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('should cut the quota of a client sending junk queries and bad signatures, and give it back after decay', async () => {
      app = await startApp({ HTTP_ADAPTER: adapter, ADMIN_TOKEN, ...env() }, { config: fastRisk });
      await app.app.get(BloomService).ready;
      const admin = new AdminClient(app);
      expect(await searchQuota(app)).toBe(60);

      for (let i = 0; i < 6; i++) {
        const junk = await fetch(`${app.url}/v1/search?q=zzqx${i}vvkj`);
        expect(junk.headers.get('rampart-shield')).toMatch(/^bloom-absent/);
        await junk.arrayBuffer();
        const forged = await fetch(`${app.url}/v1/search?q=rome`, {
          headers: {
            'x-app-id': 'demo',
            'x-timestamp': String(Date.now()),
            'x-nonce': `n-${i}-${Math.random()}`,
            'x-signature': '0'.repeat(64),
          },
        });
        expect(forged.status).toBe(401);
        await forged.arrayBuffer();
      }
      // Observations are written a few ms later (off the request path), then the band shows.
      const seen = await eventually(
        () =>
          admin.get<{ signals: Record<string, { count: number }> }>('/admin/subjects/ip/127.0.0.1'),
        (r) =>
          r.body.signals.bloom_absent?.count === 6 && r.body.signals.bad_signature?.count === 6,
        2_000,
        10,
      );
      expect(seen.body).toMatchObject({ dimension: 'ip', scored: true });
      expect(seen.text).not.toContain('127.0.0.1');
      expect(await searchQuota(app)).toBe(30);

      // 40 points at 50 ms each: back in band ×1 within about 2 s.
      expect(
        await eventually(
          () => searchQuota(app!),
          (q) => q === 60,
          5_000,
          50,
        ),
      ).toBe(60);
      const after = await admin.get<{ score: number; multiplier: number; quotas: unknown[] }>(
        '/admin/subjects/ip/127.0.0.1',
      );
      expect(after.body.multiplier).toBe(1);
      expect(after.body.score).toBeLessThan(20);
      expect(after.body.quotas).toContainEqual(
        expect.objectContaining({ rule: 'search.per-ip', capacity: 60, effectiveCapacity: 60 }),
      );
    });

    it('should show a subject with its effective quotas and reset its score, audited', async () => {
      // The shipped decay (6 s a point): the score is still there when read.
      app = await startApp({ HTTP_ADAPTER: adapter, ADMIN_TOKEN, ...env() });
      const admin = new AdminClient(app);
      for (let i = 0; i < 8; i++)
        await (await fetch(`${app.url}/v1/search/items/no-such-item-${i}`)).arrayBuffer();
      const scored = await eventually(
        () =>
          admin.get<{ signals: Record<string, { count: number }>; score: number }>(
            '/admin/subjects/ip/127.0.0.1',
          ),
        (r) => (r.body.signals.not_found?.count ?? 0) === 8,
      );
      expect(scored.body.score).toBeGreaterThan(0);
      const reset = await admin.call<{
        reset: boolean;
        subject: { score: number; signals: object };
      }>('DELETE', '/admin/subjects/ip/127.0.0.1');
      expect(reset.status).toBe(200);
      // A reset subject starts over as a new one: no signals, the new-subject weight only.
      expect(reset.body).toMatchObject({
        reset: true,
        subject: { score: 10, newSubject: true, signals: {} },
      });
      const audit = await admin.get<{ entries: { action: string; target: string }[] }>(
        '/admin/audit',
      );
      const entry = audit.body.entries.find((e) => e.action === 'subject.reset');
      expect(entry?.target).toMatch(/^subject:ip:[A-Za-z0-9_-]{16}$/);
      expect(audit.text).not.toContain('127.0.0.1');
      const bad = await admin.get<{ error: string }>('/admin/subjects/planet/x');
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('validation_failed');
    });
  },
);
