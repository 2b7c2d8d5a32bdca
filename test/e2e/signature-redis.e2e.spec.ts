import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/sdk/index.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import { SignatureModule } from '../../src/locks/signature/signature.module.js';
import {
  SignatureRoutesModule,
  signatureOnly,
  testApps,
  withSignaturePolicies,
} from '../support/signature-routes.js';

const json = { 'content-type': 'application/json' };

describe.skipIf(!redisUrl()).each(ADAPTERS)(
  'signature lock with a shared Redis nonce store (%s)',
  (adapter) => {
    const apps = testApps();
    const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
    let a: RunningApp;
    let b: RunningApp;

    beforeAll(async () => {
      // A generous command timeout: this test is about sharing nonces, not about a slow Redis on a busy machine.
      const env = {
        HTTP_ADAPTER: adapter,
        APPS_FILE: apps.file,
        REDIS_URL: redisUrl(),
        RAMPART_ENV: uniqueEnv('sig'),
        REDIS_COMMAND_TIMEOUT_MS: '2000',
      };
      a = await startApp(env, {
        search: 'empty',
        imports: [SignatureRoutesModule],
        config: withSignaturePolicies(),
      });
      b = await startApp(env, {
        search: 'empty',
        imports: [SignatureRoutesModule],
        config: withSignaturePolicies(),
      });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('should refuse on a second instance a request already accepted by the first (same nonce)', async () => {
      const headers = signRequest({
        ...creds,
        method: 'POST',
        url: `${a.url}/sig-test/echo`,
        body: '{}',
      });
      expect(
        (
          await fetch(`${a.url}/sig-test/echo`, {
            method: 'POST',
            headers: { ...headers, ...json },
            body: '{}',
          })
        ).status,
      ).toBe(200);
      const replay = await fetch(`${b.url}/sig-test/echo`, {
        method: 'POST',
        headers: { ...headers, ...json },
        body: '{}',
      });
      expect(replay.status).toBe(401);
      expect(((await replay.json()) as { error: string }).error).toBe('replayed_nonce');
    });
  },
);

/** Calls of each Redis command so far (INFO commandstats). */
function commandCalls(port: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of execFileSync('redis-cli', ['-p', String(port), 'INFO', 'commandstats'], {
    encoding: 'utf8',
  }).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

describe.skipIf(!canStartRedis()).each(ADAPTERS)(
  'signature lock and a private Redis (%s)',
  (adapter) => {
    const apps = testApps();
    const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
    let server: RedisProcess;
    let app: RunningApp;

    beforeAll(async () => {
      server = await startRedis();
      // Only the signature lock is installed, so no other module talks to this Redis in the background.
      app = await startApp(
        {
          HTTP_ADAPTER: adapter,
          APPS_FILE: apps.file,
          REDIS_URL: server.url,
          RAMPART_ENV: uniqueEnv('sigr'),
          REDIS_COMMAND_TIMEOUT_MS: '500',
        },
        {
          search: 'empty',
          imports: [SignatureRoutesModule],
          locks: [SignatureModule],
          config: (c) => signatureOnly(withSignaturePolicies()(c)),
        },
      );
    });
    afterAll(async () => {
      await app?.close();
      await server?.stop();
    });

    const send = (
      o: Partial<Parameters<typeof signRequest>[0]> = {},
      body = '{}',
    ): Promise<Response> =>
      fetch(`${app.url}/sig-test/echo`, {
        method: 'POST',
        headers: {
          ...signRequest({ ...creds, method: 'POST', url: `${app.url}/sig-test/echo`, body, ...o }),
          ...json,
        },
        body,
      });

    it('should make no Redis call for forged, unknown, expired or malformed requests, and one SET per accepted one', async () => {
      const before = commandCalls(server.port);
      const forged = [
        await send({ secret: randomBytes(32).toString('hex') }),
        await send({ appId: 'ghost-app' }),
        await send({ timestamp: Date.now() - 600_000 }),
        await fetch(`${app.url}/sig-test/echo`, {
          method: 'POST',
          headers: {
            'x-app-id': 'app-e2e',
            'x-signature': 'zz',
            'content-type': 'application/json',
          },
          body: '{}',
        }),
        await fetch(`${app.url}/sig-test/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      ];
      expect(forged.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
      const afterForged = commandCalls(server.port);
      expect((afterForged.set ?? 0) - (before.set ?? 0)).toBe(0);
      const others = Object.keys(afterForged).filter(
        (k) => k !== 'info' && afterForged[k] !== (before[k] ?? 0),
      );
      expect(others).toEqual([]);
      expect((await send()).status).toBe(200);
      expect((commandCalls(server.port).set ?? 0) - (afterForged.set ?? 0)).toBe(1);
    });

    it('should fail closed with 503 nonce_store_unavailable while Redis is down, and recover', async () => {
      server.pause();
      try {
        const res = await send();
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(((await res.json()) as { error: string }).error).toBe('nonce_store_unavailable');
        // A forged request is still refused as forged: the nonce store is never asked.
        expect(
          (
            (await (await send({ secret: randomBytes(32).toString('hex') })).json()) as {
              error: string;
            }
          ).error,
        ).toBe('bad_signature');
      } finally {
        server.resume();
      }
      await expect
        .poll(async () => (await send()).status, { timeout: 10_000, interval: 100 })
        .toBe(200);
    });
  },
);
