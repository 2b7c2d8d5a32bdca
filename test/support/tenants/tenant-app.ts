/**
 * One Rampart boot for the multi-tenant suite: four apps (two victims, `ten-a` and `ten-b`, and the hostile
 * `ten-x` and `ten-s`, all on the free tier with session keys), the test routes of tenant-routes.ts and the small limits of tenant-policies.ts,
 * and the shipped inference policy in front of a fake OpenAI upstream.
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
import { type FakeOpenAI, startFakeOpenAI } from '../fake-openai.js';
import { redisUrl, uniqueEnv } from '../redis-env.js';
import { withTenantPolicies } from './tenant-policies.js';
import { TenantRoutesModule, calls } from './tenant-routes.js';

/** `ten-s`: a second hostile app, only for requests in flight (no other case scores its record down). */
export const APP_IDS = ['ten-a', 'ten-b', 'ten-x', 'ten-s'] as const;
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

/** The running app, its inference upstream, an admin client and each app's secret. */
export interface Tenants {
  app: RunningApp;
  upstream: FakeOpenAI;
  admin: AdminClient;
  secrets: Record<AppId, string>;
  /** A GET signed by `appId` (its secret), with `x-user-id` when `user` is given; status, body and shield header. */
  get(appId: AppId, path: string, user?: string): Promise<Answer>;
  /** Closes the app, then the upstream. */
  close(): Promise<void>;
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
  const upstream = await startFakeOpenAI();
  const app = await startApp(
    {
      HTTP_ADAPTER: adapter,
      APPS_FILE: file,
      ADMIN_TOKEN,
      INFERENCE_UPSTREAM_URL: upstream.url,
      ...env,
    },
    // The tenant routes have their own key source and filter; nothing here searches the cities.
    { imports: [TenantRoutesModule], config: withTenantPolicies, search: 'empty' },
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
  const close = async () => {
    await app.close();
    await upstream.close();
  };
  return { app, upstream, admin: new AdminClient(app), secrets, get, close } satisfies Tenants;
}
