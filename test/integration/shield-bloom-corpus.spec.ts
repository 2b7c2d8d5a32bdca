/**
 * The Bloom filters over the real corpus (~135k world cities): no indexed
 * term or id is ever reported absent, and the false-positive rate measured
 * on 100k random absent keys lies within [0.5p, 1.5p].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { HealthRegistry } from '../../src/health/health-registry.service.js';
import { ShieldMetrics } from '../../src/locks/cache-shield/cache-shield.metrics.js';
import { DEFAULT_SETTINGS } from '../../src/locks/cache-shield/cache-shield.types.js';
import { BloomFilters } from '../../src/locks/cache-shield/bloom/replicas/bloom-filters.service.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { CacheShieldRegistry } from '../../src/locks/cache-shield/cache-shield.registry.js';
import { MemoryBloomStore } from '../../src/locks/cache-shield/store/memory-bloom.store.js';
import { systemClock } from '../../src/common/clock.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { openSearchBackend } from '../../src/search/search-backend.factory.js';
import type { SearchBackend } from '../../src/search/search-backend.interface.js';
import { IDS_FILTER, TERMS_FILTER } from '../../src/search/search-key-sources.js';
import { searchShieldFeature } from '../../src/search/search-shield.js';

const P = 0.001;

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    s ^= s >>> 12;
    return s / 2 ** 32;
  };
}

function randomKey(rnd: () => number, alphabet: string): string {
  const len = 3 + Math.floor(rnd() * 10);
  let s = '';
  for (let i = 0; i < len; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
  return s;
}

describe(`${BloomService.name} over the cities corpus`, () => {
  let backend: SearchBackend;
  let bloom: BloomService;

  beforeAll(async () => {
    // The same SQLite file the app uses by default (built from the cities corpus on first use).
    backend = await openSearchBackend(loadAppConfig({ LOG_LEVEL: 'silent' }));
    const metrics = new ShieldMetrics(new MetricsService());
    const registry = new CacheShieldRegistry();
    registry.register(searchShieldFeature(backend));
    const filters = new BloomFilters(
      registry,
      new MemoryBloomStore(systemClock),
      { ...DEFAULT_SETTINGS, targetFpRate: P, measureSample: 100_000, revisionPollMs: 0 },
      metrics,
      systemClock,
    );
    bloom = new BloomService(filters, metrics, new HealthRegistry());
    bloom.onModuleInit();
    await bloom.ready;
  }, 300_000);
  afterAll(async () => {
    await bloom?.onApplicationShutdown();
    await backend?.close();
  });

  it.each([
    [TERMS_FILTER, () => backend.vocabulary()],
    [IDS_FILTER, () => backend.ids()],
  ] as const)('should never report an indexed key of %s absent', async (filter, keys) => {
    const replica = bloom.filters.replica(filter);
    expect(replica.usable).toBe(true);
    let n = 0;
    const missed: string[] = [];
    for await (const key of keys()) {
      n++;
      if (bloom.verdict(filter, [key]).verdict !== 'maybe') missed.push(key);
    }
    expect(missed).toEqual([]);
    expect(n).toBe(replica.active!.info.items);
    expect(n).toBeGreaterThan(100_000);
  });

  it.each([
    [TERMS_FILTER, 'abcdefghijklmnopqrstuvwxyzàéöüçñ', () => backend.vocabulary()],
    [IDS_FILTER, '0123456789', () => backend.ids()],
  ] as const)(
    'should measure a false-positive rate within [0.5p, 1.5p] on 100k random absent keys of %s',
    async (filter, alphabet, keys) => {
      const present = new Set<string>();
      for await (const k of keys()) present.add(k);
      const rnd = seeded(filter.length * 7919);
      const probes = new Set<string>();
      while (probes.size < 100_000) {
        const k = randomKey(rnd, alphabet) + (filter === IDS_FILTER ? 'x' : '');
        if (!present.has(k)) probes.add(k);
      }
      let fp = 0;
      for (const k of probes) if (bloom.verdict(filter, [k]).verdict === 'maybe') fp++;
      const rate = fp / probes.size;
      expect(rate).toBeGreaterThanOrEqual(0.5 * P);
      expect(rate).toBeLessThanOrEqual(1.5 * P);
      // The build's own measurement (100k held-out near misses of present keys) agrees.
      const info = bloom.filters.replica(filter).active!.info;
      expect(info.measuredP).toBeGreaterThanOrEqual(0.5 * P);
      expect(info.measuredP).toBeLessThanOrEqual(1.5 * P);
    },
  );
});
