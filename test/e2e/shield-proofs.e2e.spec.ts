/**
 * Two guarantees of lock 3 that only a whole app shows (security sweep):
 *  - a Bloom build that misses a present key is refused (422) and never
 *    activated: the active build keeps answering;
 *  - the measured false-positive gauge moves as false positives are seen on
 *    live traffic, and equals false positives ÷ absent keys looked up.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { BloomFilter } from '../../src/locks/cache-shield/bloom/filter/bloom-filter.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

/** The shield alone in front of search (bursts of requests, nothing else in the way). */
function shieldOnly(targetFpRate?: number) {
  return (c: RampartConfig): RampartConfig => {
    const policies = structuredClone(c.policies);
    policies.search!.locks.rateLimit = { mode: 'off' };
    policies.search!.locks.circuitBreaker = { mode: 'off' };
    const sections =
      targetFpRate === undefined
        ? c.sections
        : { ...c.sections, cacheShield: { targetFpRate, measureSample: 2_000 } };
    return { ...c, policies, sections };
  };
}

async function started(
  targetFpRate?: number,
  env: Record<string, string> = {},
): Promise<RunningApp> {
  const app = await startApp({ ADMIN_TOKEN, ...env }, { config: shieldOnly(targetFpRate) });
  await app.app.get(BloomService).ready;
  return app;
}

const junkWord = () =>
  Array.from(randomBytes(10), (b) => String.fromCharCode(97 + (b % 26))).join('');

/** Sum of a series' samples whose label set contains `labels`. */
async function metric(app: RunningApp, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${name}{`) && line.includes(labels))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

const STORES = [
  ['memory', () => ({})],
  // A generous command timeout: this is about validation, not about a slow Redis on a busy machine.
  [
    'redis',
    () => ({
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('bv'),
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    }),
  ],
] as const;

describe.each(STORES)('a Bloom build that misses a present key (%s store)', (store, env) => {
  let app: RunningApp;
  const runs = it.skipIf(store === 'redis' && !redisUrl());
  beforeAll(async () => {
    if (store === 'redis' && !redisUrl()) return;
    app = await started(undefined, env());
  });
  afterAll(() => app?.close());
  afterEach(() => vi.restoreAllMocks());

  runs(
    'should be refused with 422 and never activated; the active build keeps answering',
    async () => {
      const replica = app.app.get(BloomService).filters.replica('search-terms');
      const before = replica.active!.info.version;
      const junk = `/v1/search?q=${junkWord()}`;
      expect((await fetch(`${app.url}${junk}`)).headers.get('rampart-shield')).toBe(
        `bloom-absent;v=${before}`,
      );
      // The new build's validation pass asks the filter about every key it was built from; the first answer is wrong.
      const has = BloomFilter.prototype.has;
      let asked = 0;
      vi.spyOn(BloomFilter.prototype, 'has').mockImplementation(function (this: BloomFilter, k) {
        return asked++ === 0 ? false : has.call(this, k);
      });
      const res = await new AdminClient(app).call('POST', '/admin/bloom/rebuild', {
        filter: 'search-terms',
      });
      vi.restoreAllMocks();
      expect(asked).toBeGreaterThan(1_000);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'bloom_validation_failed' });
      expect(String(res.body.detail)).toMatch(/1 of \d+ keys reported absent/);
      expect(replica.active!.info.version).toBe(before);
      // Nor in the store the other instances load from.
      const pointer = await app.app.get(BloomService).filters.store.pointer('search-terms');
      expect(pointer.active).toBe(before);
      expect(
        await metric(app, 'rampart_shield_bloom_builds_total', 'result="refused"'),
      ).toBeGreaterThanOrEqual(1);
      expect(await metric(app, 'rampart_shield_bloom_version', 'filter="search-terms"')).toBe(
        before,
      );
      const real = await fetch(`${app.url}/v1/search?q=lyon`);
      expect(((await real.json()) as { total: number }).total).toBeGreaterThan(0);
      expect(
        (await fetch(`${app.url}/v1/search?q=${junkWord()}`)).headers.get('rampart-shield'),
      ).toBe(`bloom-absent;v=${before}`);
    },
  );
});

describe('the measured false-positive gauge', () => {
  let app: RunningApp;
  // A filter sized for p = 0.3, so that false positives show up in a few hundred junk queries.
  beforeAll(async () => (app = await started(0.3)));
  afterAll(() => app?.close());

  const F = 'filter="search-terms"';
  async function figures() {
    return {
      gauge: await metric(app, 'rampart_shield_bloom_measured_fp_ratio', F),
      fp: await metric(app, 'rampart_shield_bloom_false_positives_total', F),
      absent: await metric(app, 'rampart_shield_bloom_lookups_total', `${F},verdict="absent"`),
    };
  }
  async function junkQueries(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${app.url}/v1/search?q=${junkWord()}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { total: number }).total).toBe(0);
    }
  }

  it('should follow false positives ÷ absent keys as junk queries arrive', async () => {
    const start = await figures();
    expect(start.fp).toBe(0);
    await junkQueries(150);
    const first = await figures();
    expect(first.fp).toBeGreaterThan(0);
    // Every junk query is one absent key: the filter either said "absent" or let it through (a false positive).
    expect(first.gauge).toBeCloseTo(first.fp / (first.fp + first.absent), 10);
    expect(first.gauge).toBeGreaterThan(0.05);
    expect(first.gauge).toBeLessThan(0.7);
    await junkQueries(150);
    const second = await figures();
    expect(second.fp).toBeGreaterThan(first.fp);
    expect(second.fp + second.absent).toBe(first.fp + first.absent + 150);
    expect(second.gauge).toBeCloseTo(second.fp / (second.fp + second.absent), 10);
    // The gauge follows the ratio at both points; the ratio itself may repeat by chance (49/150 = 98/300).
  });
});
