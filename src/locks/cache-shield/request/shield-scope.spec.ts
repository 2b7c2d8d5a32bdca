import { describe, expect, it } from 'vitest';
import type { LockContext } from '../../../chain/lock.types.js';
import { systemClock } from '../../../common/clock.js';
import { MetricsService } from '../../../metrics/metrics.service.js';
import type { BloomService } from '../bloom/bloom.service.js';
import { AnswerCache } from '../cache/answer-cache.js';
import type { KeySource } from '../cache-shield.key-source.js';
import { ShieldMetrics } from '../cache-shield.metrics.js';
import type { CacheScope } from '../cache-shield.types.js';
import { compileSlice } from '../cache-shield.validate.js';
import { MemoryResultCacheStore } from '../store/memory-result-cache.store.js';
import { ShieldService } from './shield.service.js';

/** One key per request (`?k=`), answered as the backend gave it. */
const source: KeySource<string> = {
  read: (req) => {
    const k = String((req as unknown as { query: { k: string } }).query.k);
    return { request: { filter: 'none', keys: [k], cacheKey: k, allowKey: k } };
  },
  accept: (r) => r.cacheKey,
  absent: () => null,
  found: (_k, body) => body,
  isEmpty: () => false,
  isEmptyError: () => false,
};
const bloom = { verdict: () => ({ verdict: 'bypassed', version: 0 }), generation: () => 'g' };

function setup(scope: CacheScope) {
  const cache = new AnswerCache(new MemoryResultCacheStore(100, systemClock), 'p', () => {}, {
    isUp: () => true,
    backoffMs: 1_000,
    clock: systemClock,
  });
  const shield = new ShieldService(
    bloom as unknown as BloomService,
    cache,
    new ShieldMetrics(new MetricsService()),
    systemClock,
  );
  const route = compileSlice(
    { mode: 'enforce', key: 'k', cacheScope: scope },
    new Map([['k', source as KeySource]]),
  );
  const headers: string[] = [];
  /** One request of `app` for key `k`; the backend answers `<app>:<k>` after a turn of the event loop. */
  const ask = (app: string | undefined, k: string) => {
    const ctx = {
      req: { headers: {}, method: 'GET', url: '/', query: { k } },
      reply: { header: (_n: string, v: string) => headers.push(v) },
      state: { appId: app },
      policyName: 'p',
      policy: { locks: {} },
      route: '/',
      mode: 'enforce',
    } as unknown as LockContext;
    return shield.around(
      ctx,
      route,
      () => new Promise((r) => setImmediate(() => r(`${app}:${k}`))),
    );
  };
  return { ask, headers };
}

describe(`${ShieldService.name} cache scope`, () => {
  it('should give each app its own entry and flight on an app-scoped route', async () => {
    const { ask } = setup('app');
    // Concurrent: no app joins another app's backend call.
    expect(await Promise.all([ask('a', 'k'), ask('b', 'k'), ask('a', 'k')])).toEqual([
      'a:k',
      'b:k',
      'a:k',
    ]);
    expect(await Promise.all([ask('b', 'k'), ask(undefined, 'k')])).toEqual(['b:k', 'undefined:k']);
    expect(await ask(undefined, 'k')).toBe('undefined:k');
  });

  it('should give every app the first answer on a shared route', async () => {
    const { ask, headers } = setup('shared');
    expect(await Promise.all([ask('a', 'k'), ask('b', 'k')])).toEqual(['a:k', 'a:k']);
    expect(await ask(undefined, 'k')).toBe('a:k');
    expect(headers).toEqual(['coalesced', 'cache-hit']);
  });
});
