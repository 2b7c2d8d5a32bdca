/**
 * The bans e2e files' two instances: both on one redis-server of the test's own (a ban set through one
 * instance reaches the other through it), with the admin API and a client of it on each.
 */
import type { ModuleMetadata } from '@nestjs/common';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { afterAll, beforeAll } from 'vitest';
import { ADMIN_TOKEN, AdminClient } from './admin-client.js';
import { RunningApp, startApp } from './app.js';
import { uniqueEnv } from './redis-env.js';
import { RedisProcess, startRedis } from './redis-server.js';

export interface BanInstances {
  redis: RedisProcess;
  a: RunningApp;
  b: RunningApp;
  adminA: AdminClient;
  adminB: AdminClient;
  close(): Promise<void>;
}

/** Starts a redis-server and two instances on it (this adapter, this extra env, these routes and policies). */
export async function startBanInstances(
  adapter: HttpAdapterName,
  env: Record<string, string>,
  opts: {
    imports: NonNullable<ModuleMetadata['imports']>;
    config: (c: RampartConfig) => RampartConfig;
  },
): Promise<BanInstances> {
  const redis = await startRedis();
  const all = {
    HTTP_ADAPTER: adapter,
    REDIS_URL: redis.url,
    RAMPART_ENV: uniqueEnv('ban'),
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    ADMIN_TOKEN,
    ...env,
  };
  const a = await startApp(all, opts);
  const b = await startApp(all, opts);
  return {
    redis,
    a,
    b,
    adminA: new AdminClient(a),
    adminB: new AdminClient(b),
    close: async () => {
      await Promise.all([a.close(), b.close()]);
      await redis.stop();
    },
  };
}

/** The instances for a describe block: started before its tests, closed after; read the fields in tests. */
export function useBanInstances(...args: Parameters<typeof startBanInstances>): BanInstances {
  const on = {} as BanInstances;
  beforeAll(async () => void Object.assign(on, await startBanInstances(...args)));
  afterAll(() => on.close?.());
  return on;
}
