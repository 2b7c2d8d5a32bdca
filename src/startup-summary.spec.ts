import { describe, expect, it } from 'vitest';
import { SummaryInput, startupSummary } from './startup-summary.js';

const input = (over: Partial<SummaryInput> = {}): SummaryInput => ({
  url: 'http://localhost:3000',
  bound: '0.0.0.0:3000',
  adapter: 'express',
  redis: { kind: 'none', tag: '{dev:rampart}', ready: false },
  installed: ['signature', 'rateLimit', 'cacheShield', 'circuitBreaker'],
  policies: {
    version: 1,
    updatedAt: '',
    policies: {
      search: {
        locks: {
          signature: { mode: 'enforce' },
          rateLimit: { mode: 'enforce', override: { mode: 'shadow', until: 2000 } },
          cacheShield: { mode: 'off' },
          circuitBreaker: { mode: 'enforce' },
        },
      },
      spare: { locks: { rateLimit: { mode: 'off' } } },
    },
  },
  routes: [
    { method: 'GET', template: '/v1/search', policy: 'search' },
    { method: 'GET', template: '/metrics' },
    { method: 'GET', template: '/admin/ui' },
  ],
  docsEnabled: true,
  now: 1000,
  ...over,
});

describe(startupSummary.name, () => {
  it('should say where to go, what it runs on, each policy chain and what is unprotected', () => {
    expect(startupSummary(input())).toEqual([
      'rampart ready at http://localhost:3000 (express, listening on 0.0.0.0:3000)',
      'stores: memory (one instance: state is not shared; set REDIS_URL for more)',
      'policy search: signature → rateLimit (shadow) → circuitBreaker — GET /v1/search',
      'policy spare: no lock on — no route',
      'unprotected routes: GET /metrics, GET /admin/ui',
      'console http://localhost:3000/admin/ui · docs http://localhost:3000/docs · metrics http://localhost:3000/metrics',
    ]);
  });

  it('should name the Redis kind and key tag, and drop an expired override', () => {
    const lines = startupSummary(
      input({
        redis: { kind: 'cluster', tag: '{prod:rampart}', ready: true },
        now: 5000,
        docsEnabled: false,
      }),
    );
    expect(lines[1]).toBe('stores: Redis cluster, keys tagged {prod:rampart}');
    expect(lines[2]).toContain('signature → rateLimit → circuitBreaker');
    expect(lines.at(-1)).toContain('docs off (DOCS_ENABLED)');
  });
});
