/**
 * One Rampart boot for the multi-tenant suite: three apps (two victims, `ten-a` and `ten-b`, and a hostile
 * `ten-x`, all on the free tier with session keys), the test routes of tenant-routes.ts and small limits.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { RampartConfig } from '../../../src/config/config.types.js';
import type { HttpAdapterName } from '../../../src/http/http-adapters.js';
import { BloomService } from '../../../src/locks/cache-shield/bloom/bloom.service.js';
import { signRequest } from '../../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient } from '../admin-client.js';
import { type RunningApp, startApp } from '../app.js';
import { redisUrl, uniqueEnv } from '../redis-env.js';
import { TenantRoutesModule, calls } from './tenant-routes.js';

export const APP_IDS = ['ten-a', 'ten-b', 'ten-x'] as const;
export type AppId = (typeof APP_IDS)[number];
/** Burst of the per-user rule (`t-user`) and of the per-app rule (`t-app`). */
export const PER_USER = 2;
export const PER_APP = 3;
/** Entries of the in-process result cache (memory store). */
export const CACHE_ENTRIES = 12;
/** Calls in the breaker's window before it judges the error rate (`t-backend`). */
export const BREAKER_VOLUME = 3;

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

const SIGNED = { mode: 'enforce', signed: 'required' };
const NO_LIMIT = { mode: 'off' };

function withTenantPolicies(c: RampartConfig): RampartConfig {
  const shield = (key: string, extra: Record<string, unknown> = {}) => ({
    mode: 'enforce',
    key,
    filter: 'off',
    resultTtlSeconds: 60,
    nullTtlSeconds: 60,
    ...extra,
  });
  const limited = (rules: unknown[]) => ({ mode: 'enforce', failMode: 'local', rules });
  const policies = {
    // The app-scoped cache (the default scope) and a shared one.
    't-notes': { signature: SIGNED, rateLimit: NO_LIMIT, cacheShield: shield('tenant-note') },
    't-public': {
      signature: SIGNED,
      rateLimit: NO_LIMIT,
      cacheShield: shield('tenant-note', { cacheScope: 'shared' }),
    },
    't-user': {
      signature: SIGNED,
      rateLimit: limited([
        { name: 'per-user', dimension: 'user', capacity: PER_USER, rate: '1/h' },
      ]),
    },
    't-bad': {
      signature: SIGNED,
      rateLimit: limited([{ name: 'per-user', dimension: 'user', capacity: 50, rate: '1/h' }]),
    },
    't-app': {
      signature: SIGNED,
      // An exact ceiling: the hostile app's own bad requests score it down, never the others.
      rateLimit: limited([
        { name: 'per-app', dimension: 'app', capacity: PER_APP, rate: '1/h', risk: false },
      ]),
    },
    't-backend': {
      signature: SIGNED,
      rateLimit: NO_LIMIT,
      circuitBreaker: {
        mode: 'enforce',
        backend: 't-backend',
        volumeThreshold: BREAKER_VOLUME,
        errorThresholdPercentage: 10,
        rollingCountTimeoutMs: 60_000,
        resetTimeoutMs: 60_000,
      },
    },
  };
  return {
    ...c,
    sections: {
      ...c.sections,
      rateLimit: { userHeader: 'x-user-id' },
      cacheShield: { memoryCacheEntries: CACHE_ENTRIES },
    },
    policies: {
      ...c.policies,
      ...Object.fromEntries(Object.entries(policies).map(([n, locks]) => [n, { locks }])),
    } as RampartConfig['policies'],
  };
}

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
