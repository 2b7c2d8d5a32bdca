/**
 * The signature lock's nonce claim made by the rate limiter's script (one Redis round trip
 * per signed request), against a private redis-server: the same key as the nonce store's own
 * claim, so a replay is refused whichever path claimed the nonce first; a replay charges no
 * bucket; a Redis outage fails closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { RateLimitModule } from '../../src/locks/rate-limit/rate-limit.module.js';
import { SignatureModule } from '../../src/locks/signature/signature.module.js';
import { signRequest } from '../../src/sdk/index.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, monitorCommands, startRedis } from '../support/redis-server.js';
import {
  SignatureRoutesModule,
  signatureOnly,
  testApps,
  withSignaturePolicies,
} from '../support/signature-routes.js';

/** The commands clients sent Redis while `fn` ran that name `needle` (MONITOR; commands run by scripts left out). */
async function callsNaming(
  port: number,
  needle: string,
  fn: () => Promise<void>,
): Promise<string[]> {
  const names: string[] = [];
  const monitor = await monitorCommands(port, ({ source, args }) => {
    if (source !== 'lua' && args.some((a) => a.includes(needle)))
      names.push(args[0]!.toLowerCase());
  });
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    monitor.stop();
  }
  return names;
}

/** `sig-required` with the rate limiter too: 3 requests per app per hour. */
function fused(c: RampartConfig): RampartConfig {
  const base = signatureOnly(withSignaturePolicies()(c));
  const p = base.policies['sig-required']!;
  const rateLimit = {
    mode: 'enforce' as const,
    failMode: 'local' as const,
    rules: [{ name: 'per-app', dimension: 'app' as const, capacity: 3, rate: '3/h' }],
  };
  return {
    ...base,
    policies: { ...base.policies, 'sig-required': { ...p, locks: { ...p.locks, rateLimit } } },
  };
}

describe.skipIf(!canStartRedis()).each(ADAPTERS)(
  'nonce claim fused into the rate-limit script (%s)',
  (adapter) => {
    const apps = testApps();
    const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
    let server: RedisProcess;
    let withLimit: RunningApp;
    let signatureAlone: RunningApp;

    beforeAll(async () => {
      server = await startRedis();
      const env = {
        HTTP_ADAPTER: adapter,
        APPS_FILE: apps.file,
        REDIS_URL: server.url,
        RAMPART_ENV: uniqueEnv('fuse'),
        REDIS_COMMAND_TIMEOUT_MS: '500',
      };
      const imports = [SignatureRoutesModule];
      withLimit = await startApp(env, {
        search: 'empty',
        imports,
        locks: [SignatureModule, RateLimitModule],
        config: fused,
      });
      signatureAlone = await startApp(env, {
        search: 'empty',
        imports,
        locks: [SignatureModule],
        config: (c) => signatureOnly(withSignaturePolicies()(c)),
      });
    });
    afterAll(async () => {
      await withLimit?.close();
      await signatureAlone?.close();
      await server?.stop();
    });

    const signed = () => ({
      ...signRequest({ ...creds, method: 'POST', url: '/sig-test/echo', body: '{}' }),
      'content-type': 'application/json',
    });
    const send = async (app: RunningApp, headers: Record<string, string>) => {
      const res = await fetch(`${app.url}/sig-test/echo`, { method: 'POST', headers, body: '{}' });
      const body = (await res.json()) as { error?: string };
      return `${res.status}${body.error ? ` ${body.error}` : ''}`;
    };

    it('should claim the nonce and decide the rate limit in one script, refuse its replay and charge the replay nothing', async () => {
      const first = signed();
      const nonce = Object.entries(first).find(([k]) => k.toLowerCase() === 'x-nonce')![1];
      let status = '';
      const calls = await callsNaming(server.port, nonce, async () => {
        status = await send(withLimit, first);
      });
      expect(status).toBe('200');
      // One script call names the nonce (EVALSHA; EVAL the first time): no SET of its own.
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatch(/^eval/);
      expect(await send(withLimit, first)).toBe('401 replayed_nonce');
      // Capacity 3: the replay took nothing, so two more fresh requests pass, then 429.
      expect(await send(withLimit, signed())).toBe('200');
      expect(await send(withLimit, signed())).toBe('200');
      const refused = signed();
      expect(await send(withLimit, refused)).toBe('429 rate_limited');
      // A refused request's nonce is claimed all the same (the script claims before it decides).
      expect(await send(signatureAlone, refused)).toBe('401 replayed_nonce');
    });

    it('should refuse a replay whichever path claimed the nonce first (one key)', async () => {
      const a = signed();
      expect(await send(signatureAlone, a)).toBe('200');
      expect(await send(withLimit, a)).toBe('401 replayed_nonce');
    });

    it('should fail closed with 503 nonce_store_unavailable while Redis is down', async () => {
      server.pause();
      try {
        expect(await send(withLimit, signed())).toBe('503 nonce_store_unavailable');
      } finally {
        server.resume();
      }
    });
  },
);
