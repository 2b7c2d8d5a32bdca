import { describe, expect, it, vi } from 'vitest';
import type { LockContext } from '../../../chain/lock.types.js';
import { systemClock } from '../../../common/clock.js';
import { ProblemException } from '../../../common/problem.exception.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import { searchItemKeys, searchQueryKeys } from '../../../search/search-key-sources.js';
import type { BloomService, Verdict } from '../bloom/bloom.service.js';
import { AnswerCache } from '../cache/answer-cache.js';
import type { KeySource } from '../cache-shield.key-source.js';
import { ShieldMetrics } from '../cache-shield.metrics.js';
import type { CacheShieldSlice } from '../cache-shield.types.js';
import { compileSlice as compile } from '../cache-shield.validate.js';
import { MemoryResultCacheStore } from '../store/memory-result-cache.store.js';
import { ShieldService } from './shield.service.js';

/** The key sources search registers (the shield itself knows no product). */
const SOURCES = new Map<string, KeySource>([
  ['query', searchQueryKeys],
  ['id', searchItemKeys],
]);
const compileSlice = (slice: CacheShieldSlice) => compile(slice, SOURCES);

/** A stand-in for the filters: fixed verdicts, recorded observations. */
class FakeBloom {
  verdictFor: Verdict = 'maybe';
  gen = 'g1';
  observed: string[] = [];
  contradictions = 0;
  verdict() {
    return { verdict: this.verdictFor, version: 7 };
  }
  async confirmAbsent() {
    return true;
  }
  observe(_f: string, outcome: string) {
    this.observed.push(outcome);
  }
  contradicted() {
    this.contradictions++;
  }
  generation() {
    return this.gen;
  }
}

function setup(opts: { now?: () => number } = {}) {
  const bloom = new FakeBloom();
  const metrics = new MetricsService();
  const cache = new AnswerCache(
    new MemoryResultCacheStore(100, systemClock),
    'p',
    () => undefined,
    {
      isUp: () => true,
      backoffMs: 1_000,
      clock: { now: opts.now ?? (() => Date.now()), random: () => 0.5 },
    },
  );
  const shield = new ShieldService(
    bloom as unknown as BloomService,
    cache,
    new ShieldMetrics(metrics),
    systemClock,
  );
  return { bloom, shield, metrics };
}

function ctx(
  query: Record<string, unknown> | undefined,
  o: {
    params?: Record<string, string>;
    mode?: 'enforce' | 'shadow';
    degraded?: boolean;
    policy?: string;
  } = {},
) {
  const headers: Record<string, string> = {};
  const c = {
    req: { headers: {}, method: 'GET', url: '/', query, params: o.params },
    reply: { header: (n: string, v: string) => (headers[n] = v) },
    state: { degraded: o.degraded },
    policyName: o.policy ?? 'search',
    policy: { locks: {} },
    route: '/v1/search',
    mode: o.mode ?? 'enforce',
  } as unknown as LockContext;
  return { c, headers };
}

const search = compileSlice({ mode: 'enforce', key: 'query', jitter: 0 } as CacheShieldSlice);
const items = compileSlice({ mode: 'enforce', key: 'id', jitter: 0 } as CacheShieldSlice);
const page = (q: string, total: number) => ({
  query: q,
  total,
  items: total ? [{ id: '1', name: 'Paris' }] : [],
  limit: 10,
  offset: 0,
});

describe(ShieldService.name, () => {
  it('should answer a definitely absent query with an empty page, without calling on', async () => {
    const { bloom, shield } = setup();
    bloom.verdictFor = 'absent';
    const next = vi.fn();
    const { c, headers } = ctx({ q: ' Qqxzv ', limit: '3' });
    expect(await shield.around(c, search, next)).toEqual({
      query: 'Qqxzv',
      total: 0,
      items: [],
      limit: 3,
      offset: 0,
    });
    expect(headers['Rampart-Shield']).toBe('bloom-absent;v=7');
    expect(next).not.toHaveBeenCalled();
    expect(bloom.observed).toEqual(['true-negative']);
  });

  it('should leave a request the route would refuse to the route, even when absent', async () => {
    const { bloom, shield } = setup();
    bloom.verdictFor = 'absent';
    const refusal = new ProblemException(400, 'validation_failed', 'bad');
    const next = vi.fn(async () => Promise.reject(refusal));
    await expect(shield.around(ctx({ q: 'qqxzv', limit: '500' }).c, search, next)).rejects.toBe(
      refusal,
    );
    expect(next).toHaveBeenCalledOnce();
  });

  it("should cache an answer and serve it again with this request's own query text", async () => {
    const { shield } = setup();
    const next = vi.fn(async () => page('paris', 17));
    await shield.around(ctx({ q: 'paris' }).c, search, next);
    const second = ctx({ q: '  PARIS ' });
    expect(await shield.around(second.c, search, next)).toEqual(page('PARIS', 17));
    expect(second.headers['Rampart-Shield']).toBe('cache-hit');
    expect(next).toHaveBeenCalledOnce();
  });

  it('should keep an empty answer in the null cache and count a false positive for a single maybe term', async () => {
    const { bloom, shield } = setup();
    const next = vi.fn(async () => page('zzz', 0));
    await shield.around(ctx({ q: 'zzz' }).c, search, next);
    const again = ctx({ q: 'zzz' });
    expect(await shield.around(again.c, search, next)).toEqual(page('zzz', 0));
    expect(again.headers['Rampart-Shield']).toBe('null-cache');
    expect(next).toHaveBeenCalledOnce();
    expect(bloom.observed).toEqual(['false-positive', 'false-positive']);
  });

  it('should make one call for 100 concurrent misses on one key and answer the others as coalesced', async () => {
    const { shield } = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const next = vi.fn(async () => (await gate, page('paris', 17)));
    const runs = Array.from({ length: 100 }, () => ctx({ q: 'paris' }));
    const answers = runs.map((r) => shield.around(r.c, search, next));
    release();
    expect(await Promise.all(answers)).toEqual(Array(100).fill(page('paris', 17)));
    expect(next).toHaveBeenCalledOnce();
    expect(runs.filter((r) => r.headers['Rampart-Shield'] === 'coalesced')).toHaveLength(99);
  });

  it('should share a backend failure with the joined requests, but not a failure of the first request alone', async () => {
    const { shield } = setup();
    const down = new ProblemException(503, 'search_unavailable', 'down');
    const first = shield.around(ctx({ q: 'lyon' }).c, search, () => Promise.reject(down));
    const joined = shield.around(ctx({ q: 'lyon' }).c, search, vi.fn());
    await expect(first).rejects.toBe(down);
    await expect(joined).rejects.toBe(down);
    const invalid = new ProblemException(400, 'validation_failed', 'bad');
    const own = vi.fn(async () => page('lyon', 3));
    const a = shield.around(ctx({ q: 'lyon' }).c, search, () => Promise.reject(invalid));
    const b = shield.around(ctx({ q: 'lyon' }).c, search, own);
    await expect(a).rejects.toBe(invalid);
    expect(await b).toEqual(page('lyon', 3));
    expect(own).toHaveBeenCalledOnce();
  });

  it('should serve an expired answer only while the service is degraded, and offer it as the stale result', async () => {
    let now = 1_000_000;
    const { shield } = setup({ now: () => now });
    vi.useFakeTimers({ now, toFake: ['Date'] });
    try {
      await shield.around(ctx({ q: 'rome' }).c, search, async () => page('rome', 5));
      now += 120_000;
      vi.setSystemTime(now);
      const degraded = ctx({ q: 'rome' }, { degraded: true });
      expect(await shield.around(degraded.c, search, vi.fn())).toEqual(page('rome', 5));
      expect(degraded.headers['Rampart-Shield']).toBe('cache-hit;stale');
      const normal = ctx({ q: 'rome' });
      let stale: unknown;
      await shield.around(normal.c, search, async () => {
        stale = await normal.c.state.staleResult!();
        return page('rome', 6);
      });
      expect(stale).toEqual(page('rome', 5));
    } finally {
      vi.useRealTimers();
    }
  });

  it('should not cache an answer read while the data changed', async () => {
    const { bloom, shield } = setup();
    const next = vi.fn(async () => {
      bloom.gen = 'g2';
      return page('nice', 2);
    });
    await shield.around(ctx({ q: 'nice' }).c, search, next);
    await shield.around(ctx({ q: 'nice' }).c, search, next);
    expect(next).toHaveBeenCalledTimes(2);
  });

  it('should only observe in shadow mode, and report a contradicted "absent"', async () => {
    const { bloom, shield, metrics } = setup();
    bloom.verdictFor = 'absent';
    const { c, headers } = ctx({ q: 'paris' }, { mode: 'shadow' });
    expect(await shield.around(c, search, async () => page('paris', 17))).toEqual(
      page('paris', 17),
    );
    expect(headers).toEqual({});
    expect(bloom.contradictions).toBe(1);
    expect(
      await metrics.registry.getSingleMetricAsString('rampart_shield_interceptions_total'),
    ).toContain('reason="bloom-absent",mode="shadow"} 1');
  });

  it("should answer an absent id with the route's 404 and keep a backend 404 in the null cache", async () => {
    const { bloom, shield } = setup();
    bloom.verdictFor = 'absent';
    const absent = ctx(undefined, { params: { id: 'nope' }, policy: 'search-item' });
    await expect(shield.around(absent.c, items, vi.fn())).rejects.toMatchObject({
      problem: { status: 404, error: 'item_not_found' },
      headers: { 'Rampart-Shield': 'bloom-absent;v=7' },
    });
    bloom.verdictFor = 'maybe';
    const missing = new ProblemException(404, 'item_not_found', 'Item not found');
    const next = vi.fn(async () => Promise.reject(missing));
    await expect(
      shield.around(
        ctx(undefined, { params: { id: 'gone' }, policy: 'search-item' }).c,
        items,
        next,
      ),
    ).rejects.toBe(missing);
    await expect(
      shield.around(
        ctx(undefined, { params: { id: 'gone' }, policy: 'search-item' }).c,
        items,
        next,
      ),
    ).rejects.toMatchObject({ headers: { 'Rampart-Shield': 'null-cache' } });
    expect(next).toHaveBeenCalledOnce();
  });

  it('should skip the filter while the kill switch is on, and use it again once a time-boxed switch expires', async () => {
    const { bloom, shield } = setup();
    bloom.verdictFor = 'absent';
    const next = vi.fn(async () => page('zz', 0));
    await shield.around(
      ctx({ q: 'zz' }).c,
      compileSlice({
        mode: 'enforce',
        key: 'query',
        filter: 'off',
        nullTtlSeconds: 0,
      } as CacheShieldSlice),
      next,
    );
    expect(next).toHaveBeenCalledOnce();
    const expired = ctx({ q: 'zz' });
    await shield.around(
      expired.c,
      compileSlice({
        mode: 'enforce',
        key: 'query',
        filter: 'off',
        filterOffUntil: Date.now() - 1,
      } as CacheShieldSlice),
      next,
    );
    expect(expired.headers['Rampart-Shield']).toBe('bloom-absent;v=7');
    expect(next).toHaveBeenCalledOnce();
  });

  it('should let allowlisted keys through every time and refuse an over-long query', async () => {
    const { bloom, shield } = setup();
    bloom.verdictFor = 'absent';
    const route = compileSlice({
      mode: 'enforce',
      key: 'query',
      maxQueryLength: 10,
      allowlist: [{ key: 'NEW Thing' }, { key: 'old', until: 1 }],
    } as CacheShieldSlice);
    const next = vi.fn(async () => page('new thing', 1));
    await shield.around(ctx({ q: 'new   thing' }).c, route, next);
    await shield.around(ctx({ q: 'new thing' }).c, route, next);
    expect(next).toHaveBeenCalledTimes(2);
    expect((await shield.around(ctx({ q: 'old' }).c, route, next)) as object).toMatchObject({
      total: 0,
    });
    await expect(shield.around(ctx({ q: 'x'.repeat(11) }).c, route, next)).rejects.toMatchObject({
      problem: { status: 400, error: 'query_too_long', max_length: 10 },
      headers: { 'Rampart-Shield': 'too-long' },
    });
    expect(
      await shield.around(ctx({ q: 'x'.repeat(11) }, { mode: 'shadow' }).c, route, next),
    ).toEqual(page('new thing', 1));
  });
});
