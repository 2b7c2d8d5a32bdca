/**
 * Tenant isolation of subjects (docs/security.md#tenant-isolation), on both adapters and both stores: a user id
 * is named by its app, so a second, hostile app that uses the same id (a session key it mints, or its trusted
 * user header) spends and scores only its own user; the admin API reads each as `user/<app>/<id>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSessionKey, sessionKeyCredentials, signRequest } from '../../src/sdk/index.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import {
  SessionKeyRoutesModule,
  sessionKeyApps,
  withSessionKeyPolicy,
} from '../support/session-key-routes.js';

const STORES = [
  { store: 'memory', env: (): Record<string, string> => ({}) },
  ...(redisUrl()
    ? [
        {
          store: 'redis',
          env: (): Record<string, string> => ({
            REDIS_URL: redisUrl(),
            RAMPART_ENV: uniqueEnv('tenant'),
            REDIS_COMMAND_TIMEOUT_MS: '2000',
          }),
        },
      ]
    : []),
];

interface SubjectView {
  scope: string | null;
  subject: string;
  firstSeen: string | null;
}

describe.each(ADAPTERS.flatMap((adapter) => STORES.map((s) => ({ adapter, ...s }))))(
  'subjects are scoped by app ($adapter, $store store)',
  ({ adapter, env }) => {
    const apps = sessionKeyApps();
    const secrets: Record<string, string> = { 'sk-web': apps.web, 'sk-other': apps.other };
    let app: RunningApp;
    let admin: AdminClient;

    beforeAll(async () => {
      app = await startApp(
        { HTTP_ADAPTER: adapter, APPS_FILE: apps.file, ADMIN_TOKEN, ...env() },
        { search: 'empty', imports: [SessionKeyRoutesModule], config: withSessionKeyPolicy },
      );
      admin = new AdminClient(app);
    });
    afterAll(() => app?.close());

    const url = () => `${app.url}/sk-test/user`;
    /** A call by `appId` for its user `user`: with the app's secret and the user header, or a session key. */
    const call = async (appId: string, user: string, how: 'header' | 'session') => {
      const headers: Record<string, string> =
        how === 'header'
          ? { ...signRequest({ appId, secret: secrets[appId]!, method: 'GET', url: url() }) }
          : signRequest({
              ...sessionKeyCredentials(
                deriveSessionKey(secrets[appId]!, { appId, user, scope: ['sk-user'], ttl: '2m' }),
              ),
              method: 'GET',
              url: url(),
            });
      if (how === 'header') headers['x-user-id'] = user;
      const res = await fetch(url(), { headers });
      await res.arrayBuffer();
      return res.status;
    };

    it.each(['header', 'session'] as const)(
      "should not let another app spend a user's quota by naming the same user id (%s)",
      async (how) => {
        const id = `user-42-${how}`;
        // The hostile app spends its own user-42's whole quota (2 per hour)…
        expect([await call('sk-other', id, how), await call('sk-other', id, how)]).toEqual([
          200, 200,
        ]);
        expect(await call('sk-other', id, how)).toBe(429);
        // …and the other app's user-42 still has all of its own.
        expect([await call('sk-web', id, how), await call('sk-web', id, how)]).toEqual([200, 200]);
        expect(await call('sk-web', id, how)).toBe(429);
      },
    );

    it("should keep each app's user in its own risk record, read as user/<app>/<id>", async () => {
      expect(await call('sk-other', 'user-77', 'header')).toBe(200);
      const theirs = await admin.get<SubjectView>('/admin/subjects/user/sk-other/user-77');
      const ours = await admin.get<SubjectView>('/admin/subjects/user/sk-web/user-77');
      const unscoped = await admin.get<SubjectView>('/admin/subjects/user/user-77');
      expect([theirs.status, ours.status, unscoped.status]).toEqual([200, 200, 200]);
      expect(theirs.body.scope).toBe('sk-other');
      expect(theirs.body.firstSeen).not.toBeNull();
      expect(ours.body.firstSeen).toBeNull();
      expect(unscoped.body.firstSeen).toBeNull();
      expect(new Set([theirs.body.subject, ours.body.subject, unscoped.body.subject]).size).toBe(3);
      const bad = await admin.get<{ error: string }>('/admin/subjects/ip/sk-web/203.0.113.7');
      expect([bad.status, bad.body.error]).toEqual([400, 'validation_failed']);
    });
  },
);
