/**
 * A client's bad input never trips a breaker (issue 12): hostile, nested and
 * malformed bodies sent straight at the inference breaker (signature and rate
 * limit off, so nothing stops them earlier) never answer 5xx and never count
 * as a backend failure; real requests afterwards still pass.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';

const TOKEN = 'breaker-fuzz-admin-token-01234';

function straightToTheBreaker(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: {
        ...inference,
        locks: { ...inference.locks, signature: { mode: 'off' }, rateLimit: { mode: 'off' } },
      },
    },
  };
}

const nest = (depth: number, leaf: string): string =>
  `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

/** Bodies an attacker sends: deep nesting anywhere, wrong types, broken JSON, junk bytes. */
const hostile = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 1, max: 3_000 }),
      fc.constantFrom('stop', 'messages', 'tools', 'x_extra', 'temperature'),
    )
    .map(
      ([d, field]) =>
        `{"model":"m","messages":[{"role":"user","content":"hi"}],"${field}":${nest(d, '"a"')}}`,
    ),
  fc.integer({ min: 1, max: 3_000 }).map((d) => nest(d, '')),
  fc.json({ maxDepth: 6 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify({ model: 'm', messages: v })),
  fc.string({ maxLength: 300 }),
  fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
);

describe.each(ADAPTERS)('bad input never trips a breaker (%s)', (adapter) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, ADMIN_TOKEN: TOKEN },
      { search: 'empty', config: straightToTheBreaker },
    );
  });
  afterAll(() => app?.close());

  const breaker = async () => {
    const res = await fetch(`${app.url}/admin/breakers`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const { breakers } = (await res.json()) as {
      breakers: { name: string; state: string; stats: Record<string, number> }[];
    };
    return breakers.find((b) => b.name === 'inference')!;
  };

  // 300 calls one after the other: minutes on a loaded machine, so the timeout is generous (nothing here is timed).
  it(
    'should answer 300 hostile bodies with 4xx, count no failure, and stay closed',
    { timeout: 180_000 },
    async () => {
      const statuses = new Map<number, number>();
      for (const body of fc.sample(hostile, { numRuns: 300, seed: 12 })) {
        const res = await fetch(`${app.url}/v1/inference`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, body.slice(0, 120)).toBeLessThan(500);
      }
      const b = await breaker();
      expect(b.state).toBe('closed');
      expect(b.stats.totalFailures).toBe(0);
      const ok = await fetch(`${app.url}/v1/inference`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello there' }] }),
      });
      expect(ok.status).toBe(200);
    },
  );
});
