/**
 * Rate limited but cacheable (docs/rate-limit.md#over-quota-from-the-cache): with
 * `onLimit: stale`, a caller over its quota on search is answered from the cache
 * shield's result cache (`Rampart-Shield: cache-hit;stale;over-quota`) instead of
 * a 429; a query with nothing cached still gets 429 `rate_limited`; without the
 * setting, or with the cache shield off, the 429 stays. Both adapters, both stores.
 */
import { describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { LockSlice } from '../../src/config/policy.types.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const STORES: [string, () => Record<string, string>][] = [
  ['memory', () => ({})],
  ...(redisUrl()
    ? [
        ['redis', () => ({ REDIS_URL: redisUrl(), REDIS_COMMAND_TIMEOUT_MS: '2000' })] as [
          string,
          () => Record<string, string>,
        ],
      ]
    : []),
];

/** Search: 2 per address, refilled once a minute; `onLimit` as given; the cache shield on or off. */
function searchQuota(onLimit: 'stale' | undefined, shield = true) {
  return (c: RampartConfig): RampartConfig => {
    const policies = structuredClone(c.policies);
    const locks = policies.search!.locks;
    const rl = locks.rateLimit as unknown as Record<string, unknown>;
    rl.rules = (rl.rules as { name: string }[]).map((r) =>
      r.name === 'per-ip' ? { ...r, capacity: 2, rate: '1/min' } : r,
    );
    if (onLimit) rl.onLimit = onLimit;
    if (!shield) locks.cacheShield = { mode: 'off' } as LockSlice;
    return { ...c, policies };
  };
}

async function search(app: RunningApp, q: string) {
  const res = await fetch(`${app.url}/v1/search?q=${q}`);
  const body = (await res.json()) as { error?: string };
  return { status: res.status, shield: res.headers.get('rampart-shield'), body };
}

describe.each(ADAPTERS)('over quota, answered from the cache (%s)', (adapter) => {
  describe.each(STORES)('%s store', (name, storeEnv) => {
    async function start(onLimit: 'stale' | undefined, shield = true): Promise<RunningApp> {
      const app = await startApp(
        { HTTP_ADAPTER: adapter, RAMPART_ENV: uniqueEnv('rls'), ...storeEnv() },
        { config: searchQuota(onLimit, shield) },
      );
      await app.app.get(BloomService).ready;
      return app;
    }

    it('should answer a cached query from the cache past the quota, and refuse an uncached one', async () => {
      const app = await start('stale');
      try {
        const first = await search(app, 'rome');
        expect(first.status).toBe(200);
        expect((await search(app, 'rome')).status).toBe(200);
        // Over the quota of 2: the cached answer, marked, instead of 429.
        const over = await search(app, 'rome');
        expect(over).toMatchObject({ status: 200, shield: 'cache-hit;stale;over-quota' });
        expect(over.body).toEqual(first.body);
        // Nothing cached for this query: the 429 the limiter held.
        const uncached = await search(app, 'paris');
        expect(uncached.status).toBe(429);
        expect(uncached.body.error).toBe('rate_limited');
      } finally {
        await app.close();
      }
    });

    // The store plays no part here: once is enough.
    it.runIf(name === 'memory')(
      'should keep the 429 without onLimit stale, and with the cache shield off',
      async () => {
        for (const app of [await start(undefined), await start('stale', false)]) {
          try {
            expect((await search(app, 'rome')).status).toBe(200);
            expect((await search(app, 'rome')).status).toBe(200);
            const over = await search(app, 'rome');
            expect(over.status).toBe(429);
            expect(over.body.error).toBe('rate_limited');
          } finally {
            await app.close();
          }
        }
      },
    );
  });
});
