import { describe, expect, it } from 'vitest';
import type { RoutePolicy } from '../../../config/policy.types.js';
import { GENERIC_BREAKER_OPTIONS } from '../circuit-breaker.defaults.js';
import { effectiveForce, resolveBackends } from './backend-plans.js';

const policies = (slices: Record<string, Record<string, unknown>>): Record<string, RoutePolicy> =>
  Object.fromEntries(
    Object.entries(slices).map(([name, s]) => [
      name,
      { locks: { circuitBreaker: { mode: 'enforce', ...s } } },
    ]),
  );

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
