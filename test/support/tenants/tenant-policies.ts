/** The route policies of the multi-tenant suite (test/support/tenants/tenant-routes.ts): small limits. */
import type { RampartConfig } from '../../../src/config/config.types.js';

/** Burst of the per-user rule (`t-user`) and of the per-app rule (`t-app`). */
export const PER_USER = 2;
export const PER_APP = 3;
/** Entries of the in-process result cache (memory store). */
export const CACHE_ENTRIES = 12;
/** Calls in the breaker's window before it judges the error rate (`t-backend`). */
export const BREAKER_VOLUME = 3;

const SIGNED = { mode: 'enforce', signed: 'required' };
const NO_LIMIT = { mode: 'off' };

export function withTenantPolicies(c: RampartConfig): RampartConfig {
  const shield = (key: string, extra: Record<string, unknown> = {}) => ({
    mode: 'enforce',
    key,
    filter: 'off',
    resultTtlSeconds: 60,
    nullTtlSeconds: 60,
    ...extra,
  });
  const limited = (rules: unknown[]) => ({ mode: 'enforce', failMode: 'local', rules });
  const policies = {
    // The app-scoped cache (the default scope) and a shared one.
    't-notes': { signature: SIGNED, rateLimit: NO_LIMIT, cacheShield: shield('tenant-note') },
    't-public': {
      signature: SIGNED,
      rateLimit: NO_LIMIT,
      cacheShield: shield('tenant-note', { cacheScope: 'shared' }),
    },
    't-user': {
      signature: SIGNED,
      rateLimit: limited([
        { name: 'per-user', dimension: 'user', capacity: PER_USER, rate: '1/h' },
      ]),
    },
    't-bad': {
      signature: SIGNED,
      rateLimit: limited([{ name: 'per-user', dimension: 'user', capacity: 50, rate: '1/h' }]),
    },
    't-app': {
      signature: SIGNED,
      // An exact ceiling: the hostile app's own bad requests score it down, never the others.
      rateLimit: limited([
        { name: 'per-app', dimension: 'app', capacity: PER_APP, rate: '1/h', risk: false },
      ]),
    },
    't-backend': {
      signature: SIGNED,
      rateLimit: NO_LIMIT,
      circuitBreaker: {
        mode: 'enforce',
        backend: 't-backend',
        volumeThreshold: BREAKER_VOLUME,
        errorThresholdPercentage: 10,
        rollingCountTimeoutMs: 60_000,
        resetTimeoutMs: 60_000,
      },
    },
  };
  // The shipped inference breaker with its fixed capacity (128): the concurrency cases count the shipped rules'
  // slots per user and app (64 an app), which an adaptive limit starting at 10 and shared fairly by the apps holding
  // slots would cut first. The adaptive limit and slots taken back have their own e2e (inference-adaptive-default,
  // breaker-slot-reclaim).
  const inference = c.policies.inference!;
  const fixedSlots = { ...inference.locks.circuitBreaker, adaptive: false, reclaimAfterMs: 0 };
  return {
    ...c,
    sections: {
      ...c.sections,
      rateLimit: { userHeader: 'x-user-id' },
      cacheShield: { memoryCacheEntries: CACHE_ENTRIES },
    },
    policies: {
      ...c.policies,
      inference: { ...inference, locks: { ...inference.locks, circuitBreaker: fixedSlots } },
      ...Object.fromEntries(Object.entries(policies).map(([n, locks]) => [n, { locks }])),
    } as RampartConfig['policies'],
  };
}
