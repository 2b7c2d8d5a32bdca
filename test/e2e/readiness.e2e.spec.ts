/**
 * Ready means armed: `/health/ready` answers 503 while a filter an
 * enforcing shield needs is still building (listing what is pending), 200
 * "serving unarmed by choice" with `serveWhileBuilding`, 200 once built; and
 * 503 from the first moment of a drain while requests are still served.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { drain } from '../../src/health/drain.js';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { ADMIN_TOKEN, AdminClient, READY_DETAIL } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import {
  ColorsModule,
  holdColorsBuild,
  releaseColorsBuild,
  withColorsPolicy,
} from '../support/shield-colors.js';

interface Health {
  status: string | number;
  error?: string;
  detail?: string;
  pending?: string[];
  info?: Record<string, Record<string, unknown>>;
  down?: Record<string, { status: string; message?: string }>;
}

async function ready(app: RunningApp): Promise<{ status: number; body: Health }> {
  const res = await fetch(`${app.url}/health/ready`, READY_DETAIL);
  return { status: res.status, body: (await res.json()) as Health };
}

/** The colors policy, and search's shield in shadow: the only filter readiness waits for is the colors one. */
function colorsOnly(c: RampartConfig): RampartConfig {
  const out = withColorsPolicy(c);
  const policies = structuredClone(out.policies);
  for (const name of ['search', 'search-item']) policies[name]!.locks.cacheShield!.mode = 'shadow';
  return { ...out, policies };
}

const PENDING = 'cacheShield: policy colors: bloom filter test-colors not built or loaded yet';

const STORES = [
  ['memory', () => ({})],
  // A generous command timeout: these cases are about arming, not about a slow Redis on a busy machine.
  [
    'redis',
    () => ({
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('rdy'),
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    }),
  ],
] as const;

describe.each(ADAPTERS.flatMap((a) => STORES.map(([s, env]) => [a, s, env] as const)))(
  'ready only when armed (%s, %s store)',
  (adapter, store, env) => {
    let app: RunningApp | undefined;
    const runs = it.skipIf(store === 'redis' && !redisUrl());

    afterEach(async () => {
      releaseColorsBuild();
      await app?.close();
      app = undefined;
    });

    async function boot(): Promise<RunningApp> {
      holdColorsBuild();
      app = await startApp(
        { ADMIN_TOKEN, HTTP_ADAPTER: adapter, ...env() },
        { imports: [ColorsModule], config: colorsOnly },
      );
      return app;
    }

    runs('should answer 503 listing the filter until it is built, then 200', async () => {
      const a = await boot();
      expect((await fetch(`${a.url}/health/live`)).status).toBe(200);
      const before = await ready(a);
      expect(before.status).toBe(503);
      expect(before.body).toMatchObject({
        status: 503,
        error: 'not_ready',
        detail: `not armed yet: ${PENDING}`,
        pending: [PENDING],
        down: { armed: { status: 'down' } },
      });
      // Not ready, yet it answers: a request that gets through anyway is served (the filter is bypassed).
      expect((await fetch(`${a.url}/test/colors/teal`)).status).toBe(200);
      releaseColorsBuild();
      await a.app.get(BloomService).ready;
      const after = await ready(a);
      expect(after).toMatchObject({ status: 200 });
      expect(after.body.info?.armed).toMatchObject({ status: 'up', pending: [] });
    });

    runs(
      'should serve unarmed by choice with serveWhileBuilding, set through the admin API',
      async () => {
        const a = await boot();
        const admin = new AdminClient(a);
        const patch = (options: Record<string, unknown>) =>
          admin.call('PATCH', '/admin/policies/colors/locks/cacheShield/options', { options });
        const refused = await patch({ serveWhileBuilding: 'yes' });
        expect(refused.status).toBe(400);
        expect((refused.body as { problems: string[] }).problems).toEqual([
          'policies.colors.locks.cacheShield.serveWhileBuilding: must be true or false',
        ]);
        expect((await patch({ serveWhileBuilding: true })).status).toBe(200);
        const chosen = await ready(a);
        expect(chosen).toMatchObject({ status: 200 });
        expect(chosen.body.info?.armed).toMatchObject({
          message: 'serving unarmed by choice',
          servingUnarmedByChoice: [PENDING],
        });
        expect((await patch({ serveWhileBuilding: false })).status).toBe(200);
        expect((await ready(a)).status).toBe(503);
      },
    );
  },
);

describe.each(ADAPTERS)('graceful drain (%s)', (adapter) => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter },
      { imports: [ColorsModule], config: colorsOnly },
    );
    await app.app.get(BloomService).ready;
  });
  afterAll(() => app?.app.close().catch(() => undefined));

  it('should turn readiness to 503 first, keep serving during the delay, then close', async () => {
    expect((await ready(app)).status).toBe(200);
    const phases: string[] = [];
    const done = drain(app.app, { delayMs: 400, timeoutMs: 5_000 }, (p) => phases.push(p));
    const during = await ready(app);
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({
      error: 'not_ready',
      detail: 'draining: the instance is shutting down',
    });
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${app.url}/test/colors/teal`)).status).toBe(200);
    expect(phases).toEqual(['draining']);
    await expect(done).resolves.toBe('closed');
    expect(phases).toEqual(['draining', 'closing']);
    await expect(fetch(`${app.url}/health/live`)).rejects.toThrow();
  });
});
