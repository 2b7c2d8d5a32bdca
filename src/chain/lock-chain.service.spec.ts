import { describe, expect, it } from 'vitest';
import { ManualClock } from '../common/clock.js';
import { ProblemException } from '../common/problem.exception.js';
import type { RampartConfig } from '../config/config.types.js';
import type { LockSlice } from '../config/policy.types.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { LockChain } from './lock-chain.service.js';
import type { BaseLockContext } from './lock-context.js';
import { LockStats } from './lock-stats.service.js';
import type { InterceptorLock, LockContext, Next } from './lock.types.js';

type Around = (ctx: LockContext, next: Next) => Promise<unknown>;

function setup(around: Around, slice: LockSlice = { mode: 'enforce' }) {
  const stats = new LockStats(new MetricsService());
  const config = { policies: { p: { locks: { cacheShield: slice } } } } as unknown as RampartConfig;
  const chain = new LockChain(config, stats, new ManualClock());
  const lock: InterceptorLock = {
    name: 'cacheShield',
    stage: 'interceptor',
    validateSlice: () => [],
    around: (ctx, _slice, next) => around(ctx, next),
  };
  chain.register(lock);
  const base = { policyName: 'p' } as BaseLockContext;
  const run = () =>
    chain.runInterceptors(base, chain.compile('p')!.interceptors, async () => 'handler');
  const counts = () => stats.snapshot().cacheShield?.p;
  return { run, counts };
}

describe(LockChain.name, () => {
  it('should count a lock that calls on as allowed, once', async () => {
    const { run, counts } = setup(async (_c, next) => (await next(), next()));
    expect(await run()).toBe('handler');
    expect(counts()).toMatchObject({ allowed: 1, short_circuited: 0, rejected: 0 });
  });

  it('should count a shadow lock that would have answered as shadow_rejected', async () => {
    const { run, counts } = setup((_c, next) => next('shadow_rejected'), { mode: 'shadow' });
    expect(await run()).toBe('handler');
    expect(counts()).toMatchObject({ allowed: 0, shadow_rejected: 1 });
  });

  it('should count an answer without calling on as short_circuited', async () => {
    const { run, counts } = setup(async () => 'cached');
    expect(await run()).toBe('cached');
    expect(counts()).toMatchObject({ short_circuited: 1, allowed: 0 });
  });

  it('should count a thrown problem as rejected, or as short_circuited when it is an answer', async () => {
    const refusal = setup(async () => {
      throw ProblemException.fast(503, 'circuit_open', 'Open');
    });
    await expect(refusal.run()).rejects.toBeInstanceOf(ProblemException);
    expect(refusal.counts()).toMatchObject({ rejected: 1, short_circuited: 0 });
    const answer = setup(async () => {
      throw ProblemException.fast(404, 'item_not_found', 'Not found').asAnswer();
    });
    await expect(answer.run()).rejects.toBeInstanceOf(ProblemException);
    expect(answer.counts()).toMatchObject({ rejected: 0, short_circuited: 1 });
  });

  it('should not count a backend failure after the lock called on as the lock rejecting', async () => {
    const { run, counts } = setup(async (_c, next) => {
      await next();
      throw ProblemException.fast(502, 'backend_error', 'Backend failed');
    });
    await expect(run()).rejects.toBeInstanceOf(ProblemException);
    expect(counts()).toMatchObject({ allowed: 1, rejected: 0 });
  });
});
