import { describe, expect, it } from 'vitest';
import { SHIPPED_POLICIES } from '../../app.policies.js';
import type { RoutePolicy } from '../../config/policy.types.js';
import { effectiveForce, resolveBackends } from './breaker/backend-plans.js';
import { GENERIC_BREAKER_OPTIONS } from './circuit-breaker.types.js';
import { validateBreakerSlice } from './circuit-breaker.validate.js';

const P = 'policies.x.locks.circuitBreaker';
const policies = (slices: Record<string, Record<string, unknown>>): Record<string, RoutePolicy> =>
  Object.fromEntries(
    Object.entries(slices).map(([name, s]) => [
      name,
      { locks: { circuitBreaker: { mode: 'enforce', ...s } } },
    ]),
  );

describe(validateBreakerSlice.name, () => {
  it('should accept the shipped slices', () => {
    for (const [name, p] of Object.entries(SHIPPED_POLICIES)) {
      expect(
        validateBreakerSlice(p.locks.circuitBreaker!, `policies.${name}.locks.circuitBreaker`),
      ).toEqual([]);
    }
    expect(resolveBackends(SHIPPED_POLICIES).problems).toEqual([]);
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

describe(resolveBackends.name, () => {
  it('should give a backend the options of the one policy that sets them, and list every policy that uses it', () => {
    const { plans, problems } = resolveBackends(
      policies({
        a: { backend: 'search' },
        b: { backend: 'search', timeoutMs: 500 },
        c: { backend: 'llm' },
      }),
    );
    expect(problems).toEqual([]);
    expect(plans.get('search')).toMatchObject({
      owner: 'b',
      policies: ['a', 'b'],
      options: { ...GENERIC_BREAKER_OPTIONS, timeoutMs: 500 },
    });
    expect(plans.get('llm')).toMatchObject({ policies: ['c'], options: GENERIC_BREAKER_OPTIONS });
    expect(plans.get('llm')!.owner).toBeUndefined();
  });

  it('should refuse a second policy that sets options for the same backend, naming the owner', () => {
    const { problems } = resolveBackends(
      policies({ a: { backend: 'search', timeoutMs: 100 }, b: { backend: 'search', capacity: 5 } }),
    );
    expect(problems).toEqual([
      'policies.b.locks.circuitBreaker: backend "search" already takes its options from policy "a"; set capacity there, or remove them from "a" first (one policy owns a backend\'s options)',
    ]);
  });

  it('should gather forces from every policy of a backend and keep the newest reset', () => {
    const { plans } = resolveBackends(
      policies({
        a: { backend: 's', force: 'closed', resetAt: 5 },
        b: { backend: 's', force: 'open', forceUntil: 100, resetAt: 9 },
      }),
    );
    const plan = plans.get('s')!;
    expect(plan.resetAt).toBe(9);
    expect(effectiveForce(plan.forces, 50)).toEqual({ policy: 'b', force: 'open', until: 100 });
    expect(effectiveForce(plan.forces, 100)).toEqual({ policy: 'a', force: 'closed' });
  });

  it('should leave slices without a backend out', () => {
    expect(resolveBackends(policies({ a: {} })).plans.size).toBe(0);
  });
});
