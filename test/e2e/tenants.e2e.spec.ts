/**
 * The multi-tenant suite (docs/security.md#tenant-isolation): two victim apps and a hostile one against
 * every resource they share (caches, rate buckets, risk records, session keys, breakers, requests in flight
 * under the shipped inference policy), on both adapters and both stores, one boot each. The cases live in
 * test/support/tenants/*.cases.ts; bulkheads and notification jobs have their own boots
 * (tenants-bulkhead, tenants-notifications), as do subjects named by session keys (tenants-subjects).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { ADAPTERS } from '../support/app.js';
import { breakerCases } from '../support/tenants/tenant-breaker.cases.js';
import { STORES, type Tenants, startTenants } from '../support/tenants/tenant-app.js';
import { cacheCases } from '../support/tenants/tenant-cache.cases.js';
import { concurrencyCases } from '../support/tenants/tenant-concurrency.cases.js';
import { rateCases } from '../support/tenants/tenant-rate.cases.js';
import { sessionKeyCases } from '../support/tenants/tenant-session-keys.cases.js';

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'tenants ($adapter, $store store)',
  ({ adapter, store, env }) => {
    let tenants: Tenants;
    beforeAll(async () => {
      tenants = await startTenants(adapter, env());
    });
    afterAll(() => tenants?.close());
    const t = () => tenants;

    describe('caches', () => cacheCases(t, store));
    describe('rate buckets and risk records', () => rateCases(t));
    describe('session keys', () => sessionKeyCases(t));
    describe('breakers', () => breakerCases(t));
    describe('requests in flight', () => concurrencyCases(t));
  },
);
