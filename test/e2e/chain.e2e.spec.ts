import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockChain } from '../../src/chain/lock-chain.service.js';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { TestLocksModule, calls } from '../support/test-locks.js';

const testPolicy: RoutePolicy = {
  locks: {
    signature: { mode: 'enforce' },
    rateLimit: { mode: 'enforce' },
    cacheShield: { mode: 'enforce' },
    circuitBreaker: { mode: 'enforce' },
  },
};

let seq = 0;
async function call(
  app: RunningApp,
  reject?: string,
): Promise<{ status: number; body: Record<string, unknown>; calls: string[] }> {
  const id = `r${++seq}`;
  const res = await fetch(`${app.url}/test/protected`, {
    headers: { 'x-test-id': id, ...(reject ? { 'x-test-reject': reject } : {}) },
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    calls: calls.get(id) ?? [],
  };
}

describe.each(ADAPTERS)('LockChain over HTTP (%s)', (adapter) => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter },
      {
        search: 'empty',
        locks: [TestLocksModule],
        config: (c) => ({ ...c, policies: { ...c.policies, test: structuredClone(testPolicy) } }),
      },
    );
  });
  afterAll(() => app?.close());

  it('should run the locks in the declared order, then the handler', async () => {
    const r = await call(app);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ handler: true });
    expect(r.calls).toEqual([
      'signature:enforce',
      'rateLimit:enforce',
      'cacheShield:enforce',
      'circuitBreaker:enforce',
    ]);
  });

  it('should never reach a later lock or the handler after a signature rejection', async () => {
    const r = await call(app, 'signature');
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('test_signature');
    expect(r.calls).toEqual(['signature:enforce']);
  });

  it('should never reach the interceptors or the handler after a rate-limit rejection', async () => {
    const r = await call(app, 'rateLimit');
    expect(r.status).toBe(429);
    expect(r.calls).toEqual(['signature:enforce', 'rateLimit:enforce']);
  });

  it('should let a short-circuiting interceptor keep the later lock and the handler out', async () => {
    const r = await call(app, 'cacheShield');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ shortCircuitedBy: 'cacheShield' });
    expect(r.calls).toEqual(['signature:enforce', 'rateLimit:enforce', 'cacheShield:enforce']);
  });

  it('should skip a lock turned off and let a shadowed guard through, at run time', async () => {
    const chain = app.app.get(LockChain);
    const before = chain.current();
    const policies = structuredClone(before.policies);
    policies.test!.locks.signature!.mode = 'off';
    policies.test!.locks.rateLimit!.mode = 'shadow';
    chain.replace(policies, before.version + 1);
    try {
      const r = await call(app, 'rateLimit');
      expect(r.status).toBe(200);
      expect(r.calls).toEqual([
        'rateLimit:shadow',
        'cacheShield:enforce',
        'circuitBreaker:enforce',
      ]);
      expect(chain.stats.snapshot().rateLimit?.test?.shadow_rejected).toBeGreaterThanOrEqual(1);
    } finally {
      chain.replace(before.policies, before.version + 2);
    }
  });

  it('should apply a time-boxed override only until it expires', async () => {
    const chain = app.app.get(LockChain);
    const before = chain.current();
    const policies = structuredClone(before.policies);
    policies.test!.locks.signature!.override = { mode: 'off', until: Date.now() + 300 };
    chain.replace(policies, before.version + 1);
    try {
      expect((await call(app, 'signature')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 350));
      expect((await call(app, 'signature')).status).toBe(401);
    } finally {
      chain.replace(before.policies, before.version + 2);
    }
  });

  it('should reject an invalid policy change with a 400 naming each problem and change nothing', () => {
    const chain = app.app.get(LockChain);
    const before = chain.current();
    const bad = structuredClone(before.policies) as Record<string, RoutePolicy>;
    (bad.test!.locks.signature as { mode: string }).mode = 'sometimes';
    (bad.test!.locks as Record<string, unknown>).teleport = { mode: 'enforce' };
    delete bad.search;
    let problems: string[] = [];
    try {
      chain.replace(bad, before.version + 1);
    } catch (e) {
      problems = (e as { problem: { problems: string[] } }).problem.problems;
    }
    expect(problems.some((p) => p.includes('policies.test.locks.signature.mode'))).toBe(true);
    expect(problems.some((p) => p.includes('teleport'))).toBe(true);
    expect(chain.current()).toBe(before);
  });

  it('should leave unprotected routes alone', async () => {
    const res = await fetch(`${app.url}/test/open`, { headers: { 'x-test-reject': 'signature' } });
    expect(res.status).toBe(200);
  });
});
