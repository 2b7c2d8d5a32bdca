import { describe, expect, it } from 'vitest';
import { SHIPPED_POLICIES } from '../../app.policies.js';
import type { RoutePolicy } from '../../config/policy.types.js';
import {
  breakerProblems,
  validateBreakerPolicies,
  validateBreakerSlice,
} from './circuit-breaker.validate.js';

const P = 'policies.x.locks.circuitBreaker';

describe(validateBreakerSlice.name, () => {
  it('should accept the shipped slices', () => {
    for (const [name, p] of Object.entries(SHIPPED_POLICIES)) {
      expect(
        validateBreakerSlice(p.locks.circuitBreaker!, `policies.${name}.locks.circuitBreaker`),
      ).toEqual([]);
    }
    expect(validateBreakerPolicies(SHIPPED_POLICIES)).toEqual([]);
  });

  it('should check the overload options: adaptive limit, bounded wait, slow-call rule', () => {
    const ok = {
      mode: 'enforce' as const,
      backend: 'inference',
      adaptive: { minLimit: 2, maxLimit: 64, windowMs: 500, tolerance: 0.5 },
      maxWaitMs: 250,
      maxWaiting: 50,
      slowCallMs: 2_000,
      slowCallRatio: 0.5,
      minimumVolume: 20,
    };
    expect(validateBreakerSlice(ok, P)).toEqual([]);
    expect(validateBreakerSlice({ ...ok, adaptive: false }, P)).toEqual([]);
    expect(validateBreakerSlice({ ...ok, adaptive: {} }, P)).toEqual([]);
    expect(
      validateBreakerSlice(
        {
          ...ok,
          adaptive: { minLimit: 8, maxLimit: 4, burst: 1 },
          maxWaitMs: -1,
          slowCallRatio: 0,
          minimumVolume: 0,
        },
        P,
      ),
    ).toEqual([
      `${P}.adaptive: burst: unknown option (known: minLimit, maxLimit, initialLimit, windowMs, windowSamples, minRttWindowMs, tolerance, smoothing)`,
      `${P}.maxWaitMs: must be a whole number from 0 to 60000 (milliseconds)`,
      `${P}.slowCallRatio: must be a fraction above 0, at most 1 (share of slow calls)`,
      `${P}.minimumVolume: must be a whole number from 1 to 1000000`,
    ]);
    expect(validateBreakerSlice({ ...ok, adaptive: { minLimit: 8, maxLimit: 4 } }, P)).toEqual([
      `${P}.adaptive: maxLimit: must be at least minLimit`,
    ]);
    expect(validateBreakerSlice({ ...ok, adaptive: true }, P)).toEqual([
      `${P}.adaptive: must be false or an object of adaptive limit options, e.g. { minLimit: 2, maxLimit: 64 }`,
    ]);
  });

  it('should require a backend unless the slice is off', () => {
    expect(validateBreakerSlice({ mode: 'off' }, P)).toEqual([]);
    expect(validateBreakerSlice({ mode: 'shadow' }, P)).toEqual([
      `${P}.backend: required: the name of the backend this route calls, e.g. "search"`,
    ]);
    expect(
      validateBreakerSlice({ mode: 'off', override: { mode: 'enforce', until: 1 } }, P),
    ).toHaveLength(1);
    expect(validateBreakerSlice({ mode: 'enforce', backend: 'Search!' }, P)).toEqual([
      `${P}.backend: must match ^[a-z][a-z0-9-]{0,62}$`,
    ]);
  });

  it('should name every bad option, and refuse volumeThreshold 0 with the reason', () => {
    const problems = validateBreakerSlice(
      {
        mode: 'enforce',
        backend: 'search',
        timeoutMs: 0,
        errorThresholdPercentage: 100,
        volumeThreshold: 0,
        rollingCountTimeoutMs: 1_000,
        rollingCountBuckets: 20,
        resetJitter: 1,
        capacity: 1.5,
        halfOpenProbes: 0,
        rampPercents: [50, 10],
        rampMs: -1,
        stale: 'yes',
        force: 'half',
        forceUntil: 'soon',
        resetAt: -5,
        colour: 'red',
      },
      P,
    );
    const keys = problems.map((p) => p.slice(P.length + 1, p.indexOf(':')));
    expect(keys.sort()).toEqual(
      [
        'colour',
        'timeoutMs',
        'errorThresholdPercentage',
        'volumeThreshold',
        'rollingCountBuckets',
        'resetJitter',
        'capacity',
        'halfOpenProbes',
        'rampPercents',
        'rampMs',
        'stale',
        'force',
        'forceUntil',
        'resetAt',
      ].sort(),
    );
    expect(problems.find((p) => p.startsWith(`${P}.volumeThreshold:`))).toMatch(/first failure/);
  });

  it('should refuse forceUntil without force, and a force or reset on a slice without a backend', () => {
    expect(validateBreakerSlice({ mode: 'enforce', backend: 'search', forceUntil: 5 }, P)).toEqual([
      `${P}.forceUntil: only valid with force`,
    ]);
    expect(validateBreakerSlice({ mode: 'off', force: 'open' }, P)).toEqual([
      `${P}: force and reset act on a backend's breaker; this slice names no backend`,
    ]);
    expect(validateBreakerSlice({ mode: 'off', resetAt: 5 }, P)).toHaveLength(1);
  });
});

describe(breakerProblems.name, () => {
  const set = (
    a: Record<string, unknown>,
    b: Record<string, unknown>,
  ): Record<string, RoutePolicy> => ({
    a: { locks: { circuitBreaker: { mode: 'enforce', ...a } } },
    b: { locks: { circuitBreaker: { mode: 'enforce', ...b } } },
    c: { locks: {} },
  });

  it('should list the problems of every slice, with their paths, before judging ownership', () => {
    expect(
      breakerProblems(set({ backend: 's', timeoutMs: 0 }, { backend: 's', capacity: 5 })),
    ).toEqual([
      'policies.a.locks.circuitBreaker.timeoutMs: must be a whole number from 1 to 600000 (milliseconds)',
    ]);
  });

  it('should then name a second owner of a backend, and find nothing in the shipped policies', () => {
    expect(
      breakerProblems(set({ backend: 's', timeoutMs: 5 }, { backend: 's', capacity: 5 })),
    ).toEqual(
      validateBreakerPolicies(set({ backend: 's', timeoutMs: 5 }, { backend: 's', capacity: 5 })),
    );
    expect(breakerProblems(set({ backend: 's', timeoutMs: 5 }, { backend: 's' }))).toEqual([]);
    expect(breakerProblems(SHIPPED_POLICIES)).toEqual([]);
  });
});
