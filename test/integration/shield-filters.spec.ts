/**
 * The shield's filters against a real SQLite backend, on the memory store
 * and on Redis: adds reach the filter before they become searchable,
 * writes made outside the app are detected, builds switch and roll back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { HealthRegistry } from '../../src/health/health-registry.service.js';
import { ShieldMetrics } from '../../src/locks/cache-shield/cache-shield.metrics.js';
import {
  DEFAULT_SETTINGS,
  type CacheShieldSettings,
} from '../../src/locks/cache-shield/cache-shield.types.js';
import { BloomAdmin } from '../../src/locks/cache-shield/bloom/bloom-admin.service.js';
import { BloomFilters } from '../../src/locks/cache-shield/bloom/replicas/bloom-filters.service.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { CacheShieldRegistry } from '../../src/locks/cache-shield/cache-shield.registry.js';
import type { BloomStore } from '../../src/locks/cache-shield/store/bloom-store.js';
import { MemoryBloomStore } from '../../src/locks/cache-shield/store/memory-bloom.store.js';
import { RedisBloomStore } from '../../src/locks/cache-shield/store/redis-bloom.store.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { systemClock } from '../../src/common/clock.js';
import { RedisService } from '../../src/redis/redis.service.js';
import type { SearchBackend } from '../../src/search/search-backend.interface.js';
import { IDS_FILTER, TERMS_FILTER } from '../../src/search/search-key-sources.js';
import { searchShieldFeature } from '../../src/search/search-shield.js';
import { SqliteSearchBackend } from '../../src/search/sqlite-search.backend.js';
import { fixtureCorpus } from '../fixtures/search/fixture-corpus.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const dir = mkdtempSync(join(tmpdir(), 'rampart-shield-filters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

interface Harness {
  backend: SqliteSearchBackend;
  bloom: BloomService;
  admin: BloomAdmin;
  path: string;
}

/** The shield's registry with what search plugs in (its key sources and its two filters). */
function searchRegistry(backend: SearchBackend): CacheShieldRegistry {
  const registry = new CacheShieldRegistry();
  registry.register(searchShieldFeature(backend));
  return registry;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A store per case; `env` names the Redis environment, so that two instances of one case share it. */
const stores: [string, ((env: string) => Promise<BloomStore>) | undefined][] = [
  ['memory', async () => new MemoryBloomStore(systemClock)],
  [
    'redis',
    redisUrl()
      ? async (env) => {
          const redis = new RedisService(
            loadAppConfig({
              LOG_LEVEL: 'silent',
              REDIS_URL: redisUrl(),
              RAMPART_ENV: env,
              REDIS_COMMAND_TIMEOUT_MS: '2000',
            }),
            new MetricsService(),
          );
          await redis.onModuleInit();
          cleanups.push(() => redis.onApplicationShutdown());
          return new RedisBloomStore(redis);
        }
      : undefined,
  ],
];

describe.each(stores)('shield filters on the %s store', (name, makeStore) => {
  async function start(
    settings: Partial<CacheShieldSettings> = {},
  ): Promise<Harness & { env: string }> {
    const env = uniqueEnv('sf');
    const path = join(dir, `f${++files}.sqlite`);
    const backend = await SqliteSearchBackend.open(path);
    await backend.add(fixtureCorpus());
    const metrics = new ShieldMetrics(new MetricsService());
    const filters = new BloomFilters(
      searchRegistry(backend),
      await makeStore!(env),
      { ...DEFAULT_SETTINGS, targetFpRate: 0.01, measureSample: 1_000, ...settings },
      metrics,
      systemClock,
    );
    const bloom = new BloomService(filters, metrics, new HealthRegistry());
    bloom.onModuleInit();
    cleanups.push(async () => {
      await bloom.onApplicationShutdown();
      await backend.close();
    });
    await bloom.ready;
    return { backend, bloom, admin: new BloomAdmin(filters), path, env };
  }

  it.skipIf(!makeStore)(
    'should build both filters from the backend at boot, every key present',
    async () => {
      const { backend, bloom } = await start();
      for await (const t of backend.vocabulary())
        expect(bloom.verdict(TERMS_FILTER, [t]).verdict).toBe('maybe');
      for await (const id of backend.ids())
        expect(bloom.verdict(IDS_FILTER, [id]).verdict).toBe('maybe');
      expect(bloom.verdict(TERMS_FILTER, ['paris', 'qqxzvw']).verdict).toBe('absent');
      expect(bloom.verdict(IDS_FILTER, ['no-such-id']).verdict).toBe('absent');
    },
  );

  it.skipIf(!makeStore)(
    'should hold new terms and ids before the backend makes them searchable',
    async () => {
      const { backend, bloom } = await start();
      const seen: string[] = [];
      // Registered after the shield's listener, so it runs after it and before the write.
      backend.onBeforeAdd(async () => {
        seen.push(
          bloom.verdict(TERMS_FILTER, ['zyxwvut']).verdict,
          bloom.verdict(IDS_FILTER, ['shield-new-1']).verdict,
        );
        expect((await backend.search('zyxwvut', 10, 0)).total).toBe(0);
      });
      expect(bloom.verdict(TERMS_FILTER, ['zyxwvut']).verdict).toBe('absent');
      await backend.add([{ id: 'shield-new-1', name: 'Zyxwvut Town' }]);
      expect(seen).toEqual(['maybe', 'maybe']);
      expect((await backend.search('zyxwvut', 10, 0)).total).toBe(1);
      expect(bloom.filters.replica(TERMS_FILTER).explainedRevision()).toBe(
        (await backend.count()).revision,
      );
      expect(await bloom.confirmAbsent(TERMS_FILTER)).toBe(true);
    },
  );

  it.skipIf(!makeStore)(
    'should notice a write made outside the app, bypass the filter, and rebuild it',
    async () => {
      const { path, bloom } = await start({ revisionPollMs: 50 });
      const outside = await SqliteSearchBackend.open(path);
      cleanups.push(() => outside.close());
      const v1 = bloom.filters.replica(TERMS_FILTER).active!.info.version;
      await outside.add([{ id: 'cli-1', name: 'Qwertzuiop' }]);
      if (name === 'memory') expect(await bloom.confirmAbsent(TERMS_FILTER)).toBe(false);
      await until(
        () =>
          bloom.filters.replica(TERMS_FILTER).active!.info.version > v1 &&
          bloom.filters.replica(TERMS_FILTER).usable,
      );
      expect(bloom.verdict(TERMS_FILTER, ['qwertzuiop']).verdict).toBe('maybe');
      await until(
        () =>
          bloom.filters.replica(IDS_FILTER).usable &&
          bloom.verdict(IDS_FILTER, ['cli-1']).verdict === 'maybe',
      );
    },
  );

  it.skipIf(!makeStore)(
    'should switch to a new build and roll back to the previous one, keeping adds in both',
    async () => {
      const { backend, admin, bloom } = await start();
      const [terms] = await admin.status();
      expect(terms).toMatchObject({
        name: TERMS_FILTER,
        active: {
          version: 1,
          items: expect.any(Number),
          targetFp: 0.01,
          source: 'sqlite:vocabulary',
        },
        previous: null,
        building: false,
      });
      const after = await admin.rebuild(TERMS_FILTER);
      expect(after[0]).toMatchObject({ active: { version: 2 }, previous: { version: 1 } });
      await backend.add([{ id: 'late-1', name: 'Plovdivka' }]);
      const back = await admin.rollback(TERMS_FILTER);
      expect(back[0]).toMatchObject({ active: { version: 1 }, previous: { version: 2 } });
      expect(bloom.verdict(TERMS_FILTER, ['plovdivka']).verdict).toBe('maybe');
      expect((await bloom.filters.store.pointer(TERMS_FILTER)).active).toBe(1);
      await expect(admin.rollback(TERMS_FILTER, 99)).rejects.toMatchObject({
        problem: { status: 404, error: 'bloom_version_not_found' },
      });
      await expect(admin.rebuild('nope')).rejects.toMatchObject({
        problem: { status: 404, error: 'bloom_filter_not_found' },
      });
      expect((await admin.rollback(TERMS_FILTER, 1))[0]).toMatchObject({ active: { version: 1 } });
      // Every filter at once: refused as a whole while one has no previous build.
      await expect(admin.rollback()).rejects.toMatchObject({
        problem: { status: 404, error: 'bloom_version_not_found' },
      });
      expect((await bloom.filters.store.pointer(TERMS_FILTER)).active).toBe(1);
      expect((await admin.rebuild()).map((f) => f.active?.version)).toEqual([3, 2]);
      expect((await admin.rollback()).map((f) => f.active?.version)).toEqual([1, 1]);
    },
  );

  it.skipIf(!makeStore)(
    'should load the build another instance made instead of building again, and follow its adds',
    async () => {
      const a = await start();
      // A second instance on the same store: with Redis a separate connection; in memory the same object.
      const metrics = new ShieldMetrics(new MetricsService());
      const store = a.bloom.filters.store;
      const other = await SqliteSearchBackend.open(a.path);
      const filters = new BloomFilters(
        searchRegistry(other),
        name === 'memory' ? store : await makeStore!(a.env),
        { ...DEFAULT_SETTINGS, targetFpRate: 0.01, measureSample: 1_000 },
        metrics,
        systemClock,
      );
      const b = new BloomService(filters, metrics, new HealthRegistry());
      b.onModuleInit();
      cleanups.push(async () => {
        await b.onApplicationShutdown();
        await other.close();
      });
      await b.ready;
      expect(b.filters.replica(TERMS_FILTER).active!.info.version).toBe(
        a.bloom.filters.replica(TERMS_FILTER).active!.info.version,
      );
      expect(await metrics.builds.get()).toMatchObject({ values: [] });
      await a.backend.add([{ id: 'from-a', name: 'Xanadoo' }]);
      await until(() => b.verdict(TERMS_FILTER, ['xanadoo']).verdict === 'maybe');
      await new BloomAdmin(a.bloom.filters).rebuild(IDS_FILTER);
      await until(() => b.filters.replica(IDS_FILTER).active?.info.version === 2);
      expect(b.verdict(IDS_FILTER, ['from-a']).verdict).toBe('maybe');
    },
  );
});
