/**
 * Builds the README's worked example (examples/protected-route): a new
 * product with its own shield key source and rate-limit cost function,
 * added to the app with one import and one policy — no lock file touched.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendCalls } from '../../examples/protected-route/quotes.data.js';
import { QuotesModule } from '../../examples/protected-route/quotes.module.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';

const CONFIG_FILE = resolve('examples/protected-route/quotes.policy.yaml');
/**
 * The example's own rule refills 1 token a second; on a slow machine a token can come back
 * between two requests. The test keeps the example's policy and only makes the refill slow
 * enough (1/h) that a difference in tokens is the cost alone.
 */
function slowRefill(c: RampartConfig): RampartConfig {
  const quotes = c.policies.quotes!;
  const rateLimit = quotes.locks.rateLimit!;
  const rules = (rateLimit.rules as Array<Record<string, unknown>>).map((r) => ({
    ...r,
    capacity: 100,
    rate: '1/h',
  }));
  return {
    ...c,
    policies: {
      ...c.policies,
      quotes: { ...quotes, locks: { ...quotes.locks, rateLimit: { ...rateLimit, rules } } },
    },
  };
}
const remaining = (res: Response): number =>
  Number(/;r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]);

describe.each(ADAPTERS)('worked example: a new protected product (%s)', (adapter) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, CONFIG_FILE },
      { imports: [QuotesModule], config: slowRefill },
    );
    backendCalls.length = 0;
  });
  afterAll(() => app?.close());

  const get = (path: string) => fetch(`${app.url}/v1/quotes/${path}`);

  it('should answer a quote through all four locks', async () => {
    const res = await get('q1');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'q1', author: 'Ada Lovelace' });
    expect(res.headers.get('ratelimit-policy')).toMatch(/"quotes\.per-ip"/);
  });

  it('should turn junk ids away with its key source and Bloom filter, never calling the backend', async () => {
    await expect
      .poll(async () => (await get('junk-0')).headers.get('rampart-shield') ?? '')
      .toMatch(/bloom-absent/);
    const res = await get('no-such-quote');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'quote_not_found' });
    expect(res.headers.get('rampart-shield')).toMatch(/^bloom-absent/);
    expect(backendCalls).not.toContain('no-such-quote');
  });

  it('should serve a repeated quote from the result cache', async () => {
    await get('q2');
    const again = await get('q2');
    expect(again.headers.get('rampart-shield')).toBe('cache-hit');
    expect(backendCalls.filter((id) => id === 'q2')).toHaveLength(1);
  });

  it('should charge by its own cost function: ?detail=full costs 3 tokens', async () => {
    const one = remaining(await get('q3'));
    const full = remaining(await get('q3?detail=full'));
    expect(one - full).toBe(3);
  });
});
