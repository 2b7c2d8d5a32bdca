import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/admin/console/console.controller.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp } from '../support/app.js';
import { Browser, chromiumAvailable, launch, signIn, unexpected } from './support/browser.js';
import { startConsoleApp } from './support/console-app.js';

const PAGES = [
  'overview',
  'routes',
  'rate-limits',
  'bloom',
  'breakers',
  'apps',
  'bans',
  'usage',
  'versions',
  'audit',
  'bots',
  'queues',
  'dead-letters',
];

describe.skipIf(!chromiumAvailable()).each(ADAPTERS)('console pages (%s)', (adapter) => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startConsoleApp(adapter), launch()]);
  });
  afterEach(() => browser?.closeTabs());
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('should serve the page without a token, under a strict CSP, and nothing outside the build', async () => {
    const page = await fetch(`${app.url}/admin/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const script = /src="(\/admin\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${app.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    for (const path of ['/admin/ui/assets/nope.js', '/admin/ui/assets/..%2f..%2fpackage.json']) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
    }
  });

  it('should fit a phone screen on every page, the Telegram ones too', async () => {
    const tab = await browser.page({ width: 390, height: 844 });
    await signIn(tab, app.url, ADMIN_TOKEN);
    expect(await tab.page.locator('nav.side a').count()).toBe(PAGES.length);
    expect(await tab.page.locator('.nav-soon').count()).toBe(0);
    for (const id of PAGES) {
      await tab.page.goto(`${app.url}/admin/ui#/${id}`);
      await tab.page.locator('main h1').waitFor();
      // The overview polls its series at the server's step (500 ms in these tests), so the network is
      // seldom quiet for Playwright's 500 ms: "idle" is waited for a few seconds at most, by when each
      // page's first answers have been drawn.
      await tab.page.waitForLoadState('networkidle', { timeout: 4_000 }).catch(() => undefined);
      const wide = await tab.page.evaluate<number>('document.documentElement.scrollWidth');
      expect(wide, id).toBeLessThanOrEqual(390);
    }
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should be usable with the keyboard alone', async () => {
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN); // types the token and presses Enter
    let focused = '';
    for (let i = 0; i < 40 && focused !== 'Breakers'; i++) {
      await tab.page.keyboard.press('Tab');
      focused = await tab.page.evaluate<string>(
        'document.activeElement?.textContent?.trim() ?? ""',
      );
    }
    expect(focused).toBe('Breakers');
    await tab.page.keyboard.press('Enter');
    await tab.page.locator('main h1', { hasText: 'Breakers' }).waitFor();
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should rebuild a Bloom filter with progress; force a breaker open, lift the force and reset it', async () => {
    const admin = new AdminClient(app);
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN);
    await tab.page.goto(`${app.url}/admin/ui#/bloom`);
    const card = tab.page.locator('#bloom-item-ids');
    const version = card.getByTestId('bloom-version').first();
    await version.waitFor();
    const before = Number((await version.textContent())!.slice(1));
    await card.getByRole('button', { name: 'Rebuild' }).click();
    await card.getByRole('progressbar').waitFor();
    await expect
      .poll(() => version.textContent(), { timeout: 60_000, interval: 250 })
      .toBe(`v${before + 1}`);
    await card.getByRole('progressbar').waitFor({ state: 'detached' });

    await tab.page.goto(`${app.url}/admin/ui#/breakers`);
    const breaker = tab.page.locator('#breaker-search');
    await breaker.getByRole('button', { name: 'Force open' }).click();
    await breaker.getByRole('button', { name: 'Yes' }).click();
    await breaker.getByText('forced open').waitFor();
    const phase = async () =>
      (
        await admin.get<{ breakers: { name: string; phase: string }[] }>('/admin/breakers')
      ).body.breakers.find((b) => b.name === 'search')?.phase;
    expect(await phase()).toBe('forced_open');
    // Without the force the breaker probes its way back (half-open); a reset closes it at once.
    await breaker.getByRole('button', { name: 'Remove force' }).click();
    await expect.poll(phase, { timeout: 10_000, interval: 500 }).not.toBe('forced_open');
    await breaker.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(phase, { timeout: 10_000, interval: 500 }).toBe('closed');
    await breaker.getByText('closed', { exact: true }).waitFor();
    expect(unexpected(tab.errors)).toEqual([]);
  });
});
