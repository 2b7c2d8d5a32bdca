import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startExampleApp } from '../../examples/browser/app-server.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { Browser, chromiumAvailable, launch, unexpected } from './support/browser.js';

/** The example page (examples/browser/) in headless Chromium, served by its stand-in app server, calling a real Rampart. */
describe.skipIf(!chromiumAvailable()).each(ADAPTERS)(
  'session keys in a browser (%s)',
  (adapter) => {
    const secret = randomBytes(32).toString('base64url');
    let rampart: RunningApp;
    let example: Awaited<ReturnType<typeof startExampleApp>>;
    let browser: Browser;

    beforeAll(async () => {
      example = await startExampleApp({
        appId: 'web-example',
        appSecret: secret,
        ttl: '2s',
        scope: ['inference', 'search'],
      });
      const dir = mkdtempSync(join(tmpdir(), 'rampart-sk-browser-'));
      const appsFile = join(dir, 'apps.yaml');
      const sessionKeys = { maxTtl: '1m', maxScope: ['inference', 'search'] };
      const apps = [
        { id: 'web-example', tier: 'free', secrets: [{ id: 'k1', secret }], sessionKeys },
      ];
      writeFileSync(appsFile, stringify({ apps }));
      [rampart, browser] = await Promise.all([
        startApp({ HTTP_ADAPTER: adapter, APPS_FILE: appsFile, CORS_ORIGINS: example.url }),
        launch(),
      ]);
      example.setRampartUrl(rampart.url);
    });
    afterEach(() => browser?.closeTabs());
    afterAll(async () => {
      await browser?.close();
      await rampart?.close();
      await example?.close();
    });

    it('should call inference with a session key, be refused after expiry, and recover by refreshing', async () => {
      const tab = await browser.page();
      const { page } = tab;
      await page.goto(example.url);
      await page.getByLabel('User').fill('user-42');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const answer = page.locator('#answer');
      await page.getByRole('button', { name: 'Ask (refreshes the key)' }).click();
      await expect.poll(() => answer.getAttribute('data-status')).toBe('200');
      expect((await answer.textContent())!.length).toBeGreaterThan(0);
      const first = await page.locator('#key').getAttribute('data-key-id');
      expect(first).toMatch(/^sk1\.web-example\./);
      expect(await page.content()).not.toContain(secret);

      // The key lives 2 s: wait until Rampart refuses it.
      await expect
        .poll(
          async () => {
            await page.getByRole('button', { name: 'Ask with the held key only' }).click();
            return answer.getAttribute('data-error');
          },
          { timeout: 10_000, interval: 500 },
        )
        .toBe('key_expired');
      expect(await answer.getAttribute('data-status')).toBe('401');

      await page.getByRole('button', { name: 'Ask (refreshes the key)' }).click();
      await expect.poll(() => answer.getAttribute('data-status')).toBe('200');
      const second = await page.locator('#key').getAttribute('data-key-id');
      expect(second).not.toBe(first);
      expect(unexpected(tab.errors).filter((e) => !/401/.test(e))).toEqual([]);
    });
  },
);
