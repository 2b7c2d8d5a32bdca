import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp } from '../support/app.js';
import { Browser, chromiumAvailable, launch, signIn, unexpected } from './support/browser.js';
import { startConsoleApp } from './support/console-app.js';

type Config = {
  policySet: {
    version: number;
    effective: Record<string, Record<string, string>>;
    policies: Record<
      string,
      { locks: Record<string, { override?: { mode: string; until?: number } }> }
    >;
  };
};

const num = (s: string | null): number => Number((s ?? '').replace(/[^\d]/g, ''));

describe.skipIf(!chromiumAvailable()).each(ADAPTERS)('console in a browser (%s)', (adapter) => {
  let app: RunningApp;
  let admin: AdminClient;
  let browser: Browser;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startConsoleApp(adapter), launch()]);
    admin = new AdminClient(app);
  });
  afterEach(() => browser?.closeTabs());
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('should refuse a wrong token with a clear message, then sign in and keep the token in this tab only', async () => {
    const tab = await browser.page();
    await tab.page.goto(`${app.url}/admin/ui`);
    await tab.page.locator('#token').fill('not-the-admin-token-000000');
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    const error = tab.page.locator('#sign-in-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('That token was refused. Check it and try again.');
    expect(await tab.page.evaluate<number>('sessionStorage.length')).toBe(0);

    await signIn(tab, app.url, ADMIN_TOKEN);
    expect(await tab.page.locator('h1').textContent()).toBe('Overview');
    const stored = await tab.page.evaluate(
      '({ session: Object.values(sessionStorage), local: localStorage.length, cookies: document.cookie })',
    );
    expect(stored).toEqual({ session: [ADMIN_TOKEN], local: 0, cookies: '' });
    expect(await tab.page.content()).not.toContain(ADMIN_TOKEN);

    await tab.page.getByRole('button', { name: 'Sign out' }).click();
    await tab.page.locator('#token').waitFor();
    expect(await tab.page.evaluate<number>('sessionStorage.length')).toBe(0);
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should flip a lock to shadow with an expiry, and the API should report it', async () => {
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN);
    await tab.page.goto(`${app.url}/admin/ui#/routes`);
    await tab.page.getByTestId('cell-search-rateLimit').click();
    await tab.page.getByRole('radio', { name: 'shadow' }).check();
    await tab.page.getByLabel('How long').selectOption('15m');
    const asked = Date.now();
    await tab.page.getByRole('button', { name: 'Apply' }).click();
    await tab.page.getByRole('status').getByText('search.rateLimit → shadow').waitFor();

    const cfg = (await admin.get<Config>('/admin/config')).body;
    expect(cfg.policySet.effective.search!.rateLimit).toBe('shadow');
    const until = cfg.policySet.policies.search!.locks.rateLimit!.override!.until!;
    expect(until).toBeGreaterThan(asked + 14 * 60_000);
    expect(until).toBeLessThan(Date.now() + 16 * 60_000);
    await expect
      .poll(() => tab.page.getByTestId('cell-search-rateLimit').textContent())
      .toMatch(/^shadow/);
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should show a counter moving while traffic comes in', async () => {
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN);
    const cell = tab.page.getByTestId('count-signature-allowed');
    await cell.waitFor();
    const before = num(await cell.textContent());
    for (let i = 0; i < 20; i++) await fetch(`${app.url}/v1/search?q=paris&limit=1`);
    await expect
      .poll(async () => num(await cell.textContent()), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(before + 20);
    await expect
      .poll(async () => Number(await tab.page.getByTestId('tile-rps').textContent()), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    // The hover read-out names the time of the point (whole seconds, one label) and each line's value.
    const chart = tab.page.locator('.chart', { hasText: 'Requests per second by policy' });
    const plot = chart.locator('.u-over');
    const box = (await plot.boundingBox())!;
    await tab.page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
    await expect
      .poll(() => chart.getByTestId('chart-readout').textContent())
      .toMatch(/^\d\d:\d\d:\d\d: .*search \d[\d.]*\/s/);
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should create an app and show its secret exactly once', async () => {
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN);
    await tab.page.goto(`${app.url}/admin/ui#/apps`);
    await tab.page.getByLabel('App id').fill(`browser-${adapter}`);
    await tab.page.getByRole('button', { name: 'Create app' }).click();
    const shown = tab.page.getByTestId('one-time-secret');
    await shown.waitFor();
    const secret = (await shown.textContent())!.trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect((await tab.page.content()).split(secret)).toHaveLength(2);

    await tab.page.getByRole('button', { name: 'Copy secret' }).click();
    await tab.page.getByText('Copied.').waitFor();
    expect(await tab.page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);

    // It is the real secret: a request signed with it is accepted.
    const url = `${app.url}/v1/whoami`;
    const signed = signRequest({ appId: `browser-${adapter}`, secret, method: 'GET', url });
    const who = await fetch(url, { headers: signed });
    expect(await who.json()).toMatchObject({ app: `browser-${adapter}` });

    await tab.page.getByRole('button', { name: 'Done, I stored it' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await tab.page.content()).not.toContain(secret);
    await tab.page.reload();
    await tab.page.getByTestId(`app-browser-${adapter}`).waitFor();
    expect(await tab.page.content()).not.toContain(secret);
    const storage = await tab.page.evaluate<string>(
      'JSON.stringify({ ...sessionStorage, ...localStorage })',
    );
    expect(storage).not.toContain(secret);
    expect((await admin.get('/admin/apps')).text).not.toContain(secret);
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should roll back a version', async () => {
    const change = await admin.call('PATCH', '/admin/policies/search-item/locks/cacheShield', {
      mode: 'off',
    });
    expect(change.status).toBe(200);
    const { versions } = (
      await admin.get<{ versions: { version: number }[] }>('/admin/policies/versions')
    ).body;
    const [changed, before] = versions;
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN);
    await tab.page.goto(`${app.url}/admin/ui#/versions`);
    await tab.page.getByTestId('diff').getByText('search-item.locks.cacheShield.mode').waitFor();
    const row = tab.page.getByTestId(`version-${before!.version}`);
    await row.getByRole('button', { name: 'Roll back to this' }).click();
    await row.getByRole('button', { name: 'Yes' }).click();
    await tab.page
      .getByRole('status')
      .getByText(`now v${changed!.version + 1}`)
      .waitFor();

    const v = await admin.get<{ active: number }>('/admin/policies/versions');
    expect(v.body.active).toBe(changed!.version + 1);
    expect(await admin.effective('search-item', 'cacheShield')).toBe('enforce');
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should open the page of a hash that changed while the console first rendered', async () => {
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN);
    // Once the shell is in the DOM (before its effects run), the hash changes: the console
    // must still follow it, however late its hashchange listener is attached.
    await tab.page.addInitScript(`
      new MutationObserver((_, observer) => {
        if (!document.querySelector('nav.side')) return;
        observer.disconnect();
        location.hash = '#/rate-limits';
      }).observe(document, { childList: true, subtree: true });
    `);
    await tab.page.reload();
    await tab.page.getByRole('heading', { name: 'Rate limits' }).waitFor({ timeout: 5_000 });
    expect(unexpected(tab.errors)).toEqual([]);
  });

  it('should show a refused rule change next to its field', async () => {
    const tab = await browser.page();
    await signIn(tab, app.url, ADMIN_TOKEN);
    await tab.page.goto(`${app.url}/admin/ui#/rate-limits`);
    await tab.page.getByTestId('rule-search-0-capacity').fill('-1');
    await tab.page.locator('#rl-search').getByRole('button', { name: 'Save rules' }).click();
    const error = tab.page.getByTestId('rule-search-0-capacity-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/must be an integer/);
    expect(await tab.page.getByTestId('rule-search-0-capacity').getAttribute('aria-invalid')).toBe(
      'true',
    );
    expect(unexpected(tab.errors, [400])).toEqual([]);
  });
});
