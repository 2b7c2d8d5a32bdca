/**
 * One Rampart boot for the multi-tenant suite: three apps (two victims, `ten-a` and `ten-b`, and a hostile
 * `ten-x`, all on the free tier with session keys), the test routes of tenant-routes.ts and the small limits of tenant-policies.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { HttpAdapterName } from '../../../src/http/http-adapters.js';
import { BloomService } from '../../../src/locks/cache-shield/bloom/bloom.service.js';
import { signRequest } from '../../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient } from '../admin-client.js';
import { type RunningApp, startApp } from '../app.js';
import { redisUrl, uniqueEnv } from '../redis-env.js';
import { withTenantPolicies } from './tenant-policies.js';
import { TenantRoutesModule, calls } from './tenant-routes.js';

export const APP_IDS = ['ten-a', 'ten-b', 'ten-x'] as const;
export type AppId = (typeof APP_IDS)[number];

/** The stores the suite runs on: memory always, Redis when the suite has one. */
export const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('tenants'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

/** The running app, an admin client and each app's secret. */
export interface Tenants {
  app: RunningApp;
  admin: AdminClient;
  secrets: Record<AppId, string>;
  /** A GET signed by `appId` (its secret), with `x-user-id` when `user` is given; status, body and shield header. */
  get(appId: AppId, path: string, user?: string): Promise<Answer>;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  shield: string | null;
}

export async function startTenants(adapter: HttpAdapterName, env: Record<string, string>) {
  const secrets = Object.fromEntries(
    APP_IDS.map((id) => [id, randomBytes(32).toString('base64url')]),
  ) as Record<AppId, string>;
  const sessionKeys = { maxTtl: '5m', maxScope: ['t-user', 'whoami'] };
  const file = join(mkdtempSync(join(tmpdir(), 'rampart-tenants-')), 'apps.yaml');
  const apps = APP_IDS.map((id) => ({
    id,
    tier: 'free',
    secrets: [{ id: 'k1', secret: secrets[id] }],
    sessionKeys,
  }));
  writeFileSync(file, stringify({ apps }));
  calls.length = 0; // one boot at a time: the handler's record starts empty
  const app = await startApp(
    { HTTP_ADAPTER: adapter, APPS_FILE: file, ADMIN_TOKEN, ...env },
    { imports: [TenantRoutesModule], config: withTenantPolicies },
  );
  // Every Bloom build changes the data generation, which makes cached answers stale: wait for the boot's.
  await app.app.get(BloomService).ready;
  const get = async (appId: AppId, path: string, user?: string): Promise<Answer> => {
    const url = `${app.url}${path}`;
    const headers: Record<string, string> = {
      ...signRequest({ appId, secret: secrets[appId], method: 'GET', url }),
    };
    if (user !== undefined) headers['x-user-id'] = user;
    const res = await fetch(url, { headers });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
      shield: res.headers.get('rampart-shield'),
    };
  };
  return { app, admin: new AdminClient(app), secrets, get } satisfies Tenants;
}
