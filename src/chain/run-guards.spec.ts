import { describe, expect, it } from 'vitest';
import { ManualClock } from '../common/clock.js';
import { ProblemException } from '../common/problem.exception.js';
import type { LockSlice } from '../config/policy.types.js';
import type { RequestState } from '../http/request-state.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { BaseLockContext } from './lock-context.js';
import { LockStats } from './lock-stats.service.js';
import type { GuardLock, GuardResult, LockContext } from './lock.types.js';
import type { Step } from './guard-refusal.js';
import { GuardRunner } from './run-guards.js';

const refusal = () =>
  ProblemException.fast(401, 'bad_signature', 'Request signature does not match');

/** Two guard locks in chain order: `signature` answering `first`, then `rateLimit` answering `second`. */
function setUp(
  first: (ctx: LockContext) => GuardResult,
  slice: LockSlice = { mode: 'enforce' },
  second: () => GuardResult = () => undefined,
) {
  const stats = new LockStats(new MetricsService());
  const runner = new GuardRunner(stats, new ManualClock());
  const ran: string[] = [];
  const lock = (name: GuardLock['name'], check: GuardLock['check']): GuardLock => ({
    name,
    stage: 'guard',
    validateSlice: () => [],
    check,
  });
  const steps: Step<GuardLock>[] = [
    { lock: lock('signature', (ctx) => (ran.push('signature'), first(ctx))), slice },
    {
      lock: lock('rateLimit', () => (ran.push('rateLimit'), second())),
      slice: { mode: 'enforce' },
    },
  ];
  const base = { policyName: 'p', state: {} as RequestState } as BaseLockContext;
  /** The verdict as the guard reads it: a refusal returned at once, thrown, or rejected; else `allowed`. */
  const run = async (): Promise<unknown> => {
    try {
      const r = await runner.run(base, steps);
      return r instanceof ProblemException ? r : 'allowed';
    } catch (e) {
      return e;
    }
  };
  const counts = (name: string) => stats.snapshot()[name]?.p;
  return { run, ran, counts, base, runner, steps };
}

describe(GuardRunner.name, () => {
  it('should raise a refusal a lock returns, count it rejected and run no later guard, as a thrown one', async () => {
    for (const answer of ['returned', 'thrown'] as const) {
      const problem = refusal();
      const { run, ran, counts } = setUp(() => {
        if (answer === 'thrown') throw problem;
        return problem;
      });
      expect(await run()).toBe(problem);
      expect(ran).toEqual(['signature']);
      expect(counts('signature')).toMatchObject({ rejected: 1, allowed: 0 });
    }
  });

  it('should only count a returned refusal in shadow mode, and go on', async () => {
    const { run, ran, counts } = setUp(() => refusal(), { mode: 'shadow' });
    expect(await run()).toBe('allowed');
    expect(ran).toEqual(['signature', 'rateLimit']);
    expect(counts('signature')).toMatchObject({ shadow_rejected: 1, rejected: 0, allowed: 0 });
  });

  it('should run the later guards before raising a returned refusal with onFailure: defer', async () => {
    const problem = refusal();
    const { run, ran, base, counts } = setUp(() => problem, {
      mode: 'enforce',
      onFailure: 'defer',
    } as LockSlice);
    expect(await run()).toBe(problem);
    expect(ran).toEqual(['signature', 'rateLimit']);
    expect(base.state.deferredBy).toBe('signature');
    expect(counts('rateLimit')).toMatchObject({ allowed: 1 });
  });

  it('should return a refusal decided at once (the guard throws it), never resolve a promise with one', async () => {
    const problem = refusal();
    const now = setUp(() => problem);
    expect(now.runner.run(now.base, now.steps)).toBe(problem);
    // The first lock answers later (a promise): the second's returned refusal rejects the promise.
    const later = setUp(
      () => Promise.resolve(),
      { mode: 'enforce' },
      () => problem,
    );
    await expect(later.runner.run(later.base, later.steps)).rejects.toBe(problem);
    expect(later.counts('rateLimit')).toMatchObject({ rejected: 1 });
  });

  it('should settle a handed-off claim, then raise the refusal the taking guard returns', async () => {
    const problem = refusal();
    const settled: string[] = [];
    const t = setUp(
      (ctx) => {
        ctx.state.claimHandoff = {
          owner: 'signature',
          key: 'k',
          ttlMs: 1,
          settle: () => void settled.push('settled'),
        };
      },
      { mode: 'enforce' },
      () => problem,
    );
    t.steps[1]!.lock.takesClaim = () => true;
    expect(await t.run()).toBe(problem);
    expect(settled).toEqual(['settled']);
    expect(t.counts('signature')).toMatchObject({ allowed: 1 });
    expect(t.counts('rateLimit')).toMatchObject({ rejected: 1, allowed: 0 });
  });

  it('should allow a lock that returns nothing', async () => {
    const { run, ran, counts } = setUp(() => undefined);
    expect(await run()).toBe('allowed');
    expect(ran).toEqual(['signature', 'rateLimit']);
    expect(counts('signature')).toMatchObject({ allowed: 1, rejected: 0 });
  });
});
