/**
 * `/health/ready` is public, so its public answer is the status (and, when
 * not ready, the reasons): no backend, bot id, token fingerprint or load
 * action. Every check's details need the admin token or METRICS_TOKEN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BloomService } from '../../src/locks/cache-shield/bloom/bloom.service.js';
import { ADMIN_TOKEN } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { telegramConfigFile } from '../support/telegram.js';

const METRICS_TOKEN = 'metrics-token-for-health-0123';

async function ready(app: RunningApp, token?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await fetch(`${app.url}/health/ready`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe.each(ADAPTERS)('/health/ready detail (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;

  beforeAll(async () => {
    api = await startFakeBotApi();
    app = await startApp({
      HTTP_ADAPTER: adapter,
      ADMIN_TOKEN,
      METRICS_TOKEN,
      CONFIG_FILE: telegramConfigFile([{ id: 'tgbot7', mode: 'builtin' }], { apiRoot: api.url }),
    });
    await app.app.get(BloomService).ready;
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should answer only the status publicly, also with a wrong token', async () => {
    for (const token of [undefined, 'not-the-admin-token-0123', `${ADMIN_TOKEN}x`]) {
      const body = await ready(app, token);
      expect(body).toEqual({ status: 'ok' });
      const text = JSON.stringify(body);
      for (const word of ['tgbot7', 'sqlite', 'breaker', 'fingerprint', 'telegram', 'search'])
        expect(text).not.toContain(word);
    }
  });

  it('should show every check with the admin token or METRICS_TOKEN', async () => {
    for (const token of [ADMIN_TOKEN, METRICS_TOKEN]) {
      const body = (await ready(app, token)) as {
        info?: Record<string, Record<string, unknown>>;
      };
      expect(body).toMatchObject({ status: 'ok', details: expect.any(Object) as object });
      expect(body.info?.search).toMatchObject({ status: 'up', backend: 'sqlite' });
      expect(JSON.stringify(body.info?.telegram)).toContain('tgbot7');
    }
  });
});
