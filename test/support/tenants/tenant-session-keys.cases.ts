/**
 * Session keys (docs/session-keys.md): an app mints keys only for itself, a key it forges for another app
 * is refused, and revoking or denying one app's keys leaves another app's keys working.
 */
import { expect, it } from 'vitest';
import { deriveSessionKey, sessionKeyCredentials, signRequest } from '../../../src/sdk/index.js';
import type { AppId, Tenants } from './tenant-app.js';

interface Key {
  appId: string;
  keyId: string;
  secret: string;
}

export function sessionKeyCases(t: () => Tenants): void {
  /** POST /v1/session-keys signed with `appId`'s own secret. */
  const mint = async (appId: AppId, body: Record<string, unknown>) => {
    const { app, secrets } = t();
    const url = `${app.url}/v1/session-keys`;
    const text = JSON.stringify(body);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signRequest({ appId, secret: secrets[appId], method: 'POST', url, body: text }),
      },
      body: text,
    });
    return { status: res.status, body: (await res.json()) as Key & { error?: string } };
  };
  /** GET /tenant-test/who signed with a session key; `asApp` overrides the app id sent. */
  const who = async (key: Key, asApp?: string) => {
    const url = `${t().app.url}/tenant-test/who`;
    const headers = signRequest({ ...sessionKeyCredentials(key), method: 'GET', url });
    if (asApp !== undefined) headers['x-app-id'] = asApp;
    const res = await fetch(url, { headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const keyFor = (appId: AppId, user: string): Key =>
    deriveSessionKey(t().secrets[appId], { appId, user, scope: ['t-user'], ttl: '2m' });

  it('should mint a key only for the signing app, whatever the body names', async () => {
    const minted = await mint('ten-x', { user: 'u-42', scope: ['t-user'], ttl: '2m' });
    expect([minted.status, minted.body.appId]).toEqual([201, 'ten-x']);
    expect(minted.body.keyId.startsWith('sk1.ten-x.')).toBe(true);
    expect((await who(minted.body)).body).toEqual({ app: 'ten-x', user: 'u-42' });
    const other = await mint('ten-x', { user: 'u-42', appId: 'ten-a' });
    expect([other.status, other.body.error]).toEqual([400, 'validation_failed']);
  });

  it("should refuse a key a hostile app forges or presents for another app's user", async () => {
    // The hostile app derives a key id of ten-a with its own secret…
    const forged = deriveSessionKey(t().secrets['ten-x'], {
      appId: 'ten-a',
      user: 'u-7',
      scope: ['t-user'],
      ttl: '2m',
    });
    expect((await who(forged)).status).toBe(401);
    // …or sends its own key under ten-a's app id.
    expect((await who(keyFor('ten-x', 'u-7'), 'ten-a')).status).toBe(401);
    expect((await who(keyFor('ten-a', 'u-7'))).body).toEqual({ app: 'ten-a', user: 'u-7' });
  });

  it("should revoke or deny one app's keys only", async () => {
    const { admin } = t();
    const [victim, hostile] = [keyFor('ten-a', 'u-9'), keyFor('ten-x', 'u-9')];
    const denyAcross = await admin.call('POST', '/admin/apps/ten-x/session-keys/deny', {
      keyId: victim.keyId,
    });
    expect(denyAcross.status).toBe(400);
    expect((await admin.call('POST', '/admin/apps/ten-x/session-keys/revoke')).status).toBe(200);
    const refused = await who(hostile);
    expect([refused.status, refused.body.error]).toEqual([401, 'key_revoked']);
    expect((await who(victim)).status).toBe(200);
  });
}
