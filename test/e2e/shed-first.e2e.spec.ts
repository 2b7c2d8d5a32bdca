/**
 * Shed first (docs/quotas.md#shed-first), both adapters: the test process (the app runs in it) busy-waits
 * 120 ms again and again, so the event-loop delay passes `eventLoopDelay.soft` (not `hard`). At soft a
 * rank-0 policy is served as configured — but at the front door the instance sheds 503 `load_shed` the
 * requests without a signature, and the requests of an address it answered 401 lately, while a request with
 * signature headers from another address goes on (200). Counted by class, no address in /metrics. Once the
 * loop is free and `load.hold` passed, nothing is shed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { RateLimitRoutesModule, withRateLimitPolicies } from '../support/rate-limit-routes.js';
import { uniqueEnv } from '../support/redis-env.js';

const SUSPECT = '203.0.113.45';
const CLEAN = '198.51.100.61';

const config = withRateLimitPolicies(
  {
    plain: {
      mode: 'enforce',
      rules: [{ name: 'per-ip', dimension: 'ip', capacity: 10_000, rate: '1000/s' }],
    },
  },
  {
    rateLimit: {
      load: { poll: '50ms', hold: '300ms', eventLoopDelay: { soft: '60ms', hard: '10min' } },
    },
  },
);

/** Blocks this process's event loop for `ms` every few ms until stopped. */
function blockLoop(ms: number): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + ms;
    while (performance.now() < until); // busy-wait on purpose
  }, 20);
  return () => clearInterval(timer);
}

/** GET /rl-test/plain from `ip`, with signature headers (any: this policy has no signature lock) or none. */
async function plain(app: RunningApp, ip: string, signed: boolean): Promise<number> {
  const headers: Record<string, string> = { 'x-forwarded-for': ip };
  if (signed) Object.assign(headers, { 'x-app-id': 'any-app', 'x-signature': 'f'.repeat(64) });
  const res = await fetch(`${app.url}/rl-test/plain`, { headers });
  await res.arrayBuffer();
  return res.status;
}

describe.each(ADAPTERS)('shed first (%s)', (adapter) => {
  let app: RunningApp | undefined;
  let unblock: (() => void) | undefined;
  afterEach(async () => {
    unblock?.();
    unblock = undefined;
    await app?.close();
    app = undefined;
  });

  it('should shed requests without a signature and from a suspect address first, and serve the rest', async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, RAMPART_ENV: uniqueEnv('shed1st'), TRUSTED_PROXIES: '127.0.0.1/32' },
      { imports: [RateLimitRoutesModule], config },
    );
    // Booting may stall the loop itself: wait until an unsigned request is served.
    await vi.waitFor(async () => expect(await plain(app!, CLEAN, false)).toBe(200), {
      timeout: 20_000,
      interval: 100,
    });
    // A bad signature on search (signature optional there): 401, and the address is suspect.
    const forged = await fetch(`${app.url}/v1/search?q=rome`, {
      headers: {
        'x-forwarded-for': SUSPECT,
        'x-app-id': 'no-such-app',
        'x-timestamp': String(Date.now()),
        'x-nonce': 'n'.repeat(16),
        'x-signature': '0'.repeat(64),
      },
    });
    expect(forged.status).toBe(401);

    unblock = blockLoop(120);
    await vi.waitFor(async () => expect(await plain(app!, CLEAN, false)).toBe(503), {
      timeout: 20_000,
      interval: 50,
    });
    const anonymous = await fetch(`${app.url}/rl-test/plain`, {
      headers: { 'x-forwarded-for': CLEAN },
    });
    expect(anonymous.status).toBe(503);
    expect(anonymous.headers.get('retry-after')).toBe('5');
    expect(await anonymous.json()).toMatchObject({ error: 'load_shed' });
    expect(await plain(app, SUSPECT, true)).toBe(503);
    expect(await plain(app, CLEAN, true)).toBe(200);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(
      /rampart_load_shed_first_total\{policy="rl-plain",class="anonymous"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /rampart_load_shed_first_total\{policy="rl-plain",class="suspect"\} [1-9]/,
    );
    expect(metrics).not.toContain(SUSPECT);

    unblock();
    unblock = undefined;
    await vi.waitFor(
      async () => {
        expect(await plain(app!, CLEAN, false)).toBe(200);
        expect(await plain(app!, SUSPECT, true)).toBe(200);
      },
      { timeout: 20_000, interval: 100 },
    );
  });
});
