/**
 * One routing on both adapters: strict. Paths are case-sensitive and a
 * trailing `/` matches nothing, so express answers `/V1/SEARCH`,
 * `/v1/search/` and a webhook path ending in `/` as fastify does: 404
 * problem+json `not_found` (without echoing the path, which may carry a
 * webhook's path secret); the exact paths answer 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { PATH_SECRET, deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

async function notFound(res: Response): Promise<void> {
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status: 404, error: 'not_found' });
  // The path is not echoed: a webhook path carries the bot's path secret.
  expect(JSON.stringify(body)).not.toContain(PATH_SECRET);
}

describe.each(ADAPTERS)('strict routing (%s)', (adapter) => {
  let app: RunningApp;
  let api: FakeBotApi;

  beforeAll(async () => {
    api = await startFakeBotApi();
    app = await startApp({
      HTTP_ADAPTER: adapter,
      CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'builtin' }], { apiRoot: api.url }),
    });
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should answer the exact search path 200', async () => {
    const res = await fetch(`${app.url}/v1/search?q=paris`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('should answer another case or a trailing slash 404 problem+json', async () => {
    for (const path of [
      '/V1/SEARCH?q=paris',
      '/v1/Search?q=paris',
      '/v1/search/?q=paris',
      '/v1/search/items/2988507/',
      '/health/live/',
      '/HEALTH/LIVE',
    ]) {
      await notFound(await fetch(`${app.url}${path}`));
    }
  });

  it('should accept the exact webhook path and refuse it with a trailing slash', async () => {
    expect((await deliver(app.url, textUpdate('hi'))).status).toBe(200);
    await notFound(await deliver(app.url, textUpdate('hi'), { path: `${PATH_SECRET}/` }));
  });
});
