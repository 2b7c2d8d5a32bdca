import { describe, expect, it } from 'vitest';
import type { RoutePolicy } from '../../config/policy.types.js';
import { ProblemException } from '../../common/problem.exception.js';
import {
  clearOverride,
  deletePolicy,
  forceBreaker,
  mergeLockOptions,
  mergePatch,
  putPolicy,
  resetBreaker,
  setLockMode,
} from './policy-edits.js';

const base = (): Record<string, RoutePolicy> => ({
  search: {
    description: 's',
    locks: {
      rateLimit: {
        mode: 'enforce',
        failMode: 'local',
        rules: [{ name: 'a' }],
        tiers: { free: 1, pro: 5 },
      },
      circuitBreaker: { mode: 'enforce' },
    },
  },
});

function problemOf(fn: () => unknown): { status: number; error: string; problems?: string[] } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProblemException) return e.problem as never;
    throw e;
  }
  throw new Error('no problem thrown');
}

describe(setLockMode.name, () => {
  it('should set the permanent mode and drop a running override', () => {
    const p = base();
    p.search!.locks.rateLimit!.override = { mode: 'off', until: 1 };
    expect(setLockMode(p, 'search', 'rateLimit', 'shadow').search!.locks.rateLimit).toMatchObject({
      mode: 'shadow',
    });
    expect(p.search!.locks.rateLimit!.override).toBeUndefined();
  });

  it('should store a time-boxed override without touching the permanent mode', () => {
    const p = setLockMode(base(), 'search', 'rateLimit', 'off', 5_000);
    expect(p.search!.locks.rateLimit).toMatchObject({
      mode: 'enforce',
      override: { mode: 'off', until: 5_000 },
    });
    expect(
      clearOverride(p, 'search', 'rateLimit').search!.locks.rateLimit!.override,
    ).toBeUndefined();
  });

  it('should create the slice of a lock the policy does not list yet', () => {
    expect(setLockMode(base(), 'search', 'signature', 'shadow').search!.locks.signature).toEqual({
      mode: 'shadow',
    });
  });

  it('should answer 404 for an unknown policy and 400 for an unknown lock', () => {
    expect(problemOf(() => setLockMode(base(), 'nope', 'rateLimit', 'off'))).toMatchObject({
      status: 404,
      error: 'policy_not_found',
    });
    expect(problemOf(() => setLockMode(base(), '__proto__', 'rateLimit', 'off'))).toMatchObject({
      status: 404,
    });
    expect(problemOf(() => setLockMode(base(), 'search', 'teleport', 'off'))).toMatchObject({
      status: 400,
      error: 'unknown_lock',
    });
  });
});

describe(mergeLockOptions.name, () => {
  it('should merge as a JSON Merge Patch: objects merge, null deletes, arrays replace', () => {
    const p = mergeLockOptions(base(), 'search', 'rateLimit', {
      tiers: { pro: 10, free: null },
      failMode: 'closed',
      rules: [{ name: 'b' }],
    });
    expect(p.search!.locks.rateLimit).toEqual({
      mode: 'enforce',
      failMode: 'closed',
      rules: [{ name: 'b' }],
      tiers: { pro: 10 },
    });
  });

  it('should refuse mode and override (they have their own endpoint), and __proto__', () => {
    expect(
      problemOf(() =>
        mergeLockOptions(base(), 'search', 'rateLimit', { mode: 'off', override: {} }),
      ).problems,
    ).toHaveLength(2);
    expect(
      problemOf(() =>
        mergeLockOptions(
          base(),
          'search',
          'rateLimit',
          JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>,
        ),
      ),
    ).toMatchObject({ status: 400 });
  });
});

describe(mergePatch.name, () => {
  it('should follow the RFC 7396 examples', () => {
    expect(mergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'b' }, { b: 'c' })).toEqual({ a: 'b', b: 'c' });
    expect(mergePatch({ a: 'b' }, { a: null })).toEqual({});
    expect(mergePatch({ a: [{ b: 'c' }] }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } })).toEqual({ a: { b: 'd' } });
    expect(mergePatch(['a'], { a: 'b' })).toEqual({ a: 'b' });
  });
});

describe(putPolicy.name, () => {
  it('should create or replace a whole policy, and refuse a bad name', () => {
    expect(putPolicy(base(), 'new-one', { locks: {} })['new-one']).toEqual({ locks: {} });
    expect(problemOf(() => putPolicy(base(), 'Bad Name', { locks: {} }))).toMatchObject({
      status: 400,
    });
    expect(deletePolicy(base(), 'search')).toEqual({});
  });
});

describe(forceBreaker.name, () => {
  it('should set and remove force / forceUntil, and reset with resetAt dropping the force', () => {
    const forced = forceBreaker(base(), 'search', 'open', 9_000);
    expect(forced.search!.locks.circuitBreaker).toEqual({
      mode: 'enforce',
      force: 'open',
      forceUntil: 9_000,
    });
    expect(forceBreaker(forced, 'search', undefined).search!.locks.circuitBreaker).toEqual({
      mode: 'enforce',
    });
    const reset = resetBreaker(forceBreaker(base(), 'search', 'closed'), 'search', 1234);
    expect(reset.search!.locks.circuitBreaker).toEqual({ mode: 'enforce', resetAt: 1234 });
  });
});
