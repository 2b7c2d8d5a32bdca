import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); `npx playwright install` cannot download here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** True when the browser ring can run; without Chromium it is skipped loudly, and fails with CI=true. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const msg = `NO CHROMIUM at ${CHROMIUM}: the browser tests are SKIPPED (apt-get install chromium)`;
  if (process.env.CI === 'true') throw new Error(`${msg} (CI=true makes this a failure)`);
  process.stderr.write(`\n\n*** ${msg} ***\n\n`);
  return false;
}

export interface Browser {
  context: BrowserContext;
  /** A new tab (its own sessionStorage), recording page errors and console errors. */
  page(viewport?: { width: number; height: number }): Promise<Tab>;
  /** Closes every tab opened so far (their polling would eat the admin API's rate limit). */
  closeTabs(): Promise<void>;
  close(): Promise<void>;
}

export interface Tab {
  page: Page;
  /** Uncaught errors and console errors seen so far (CSP violations land here too). */
  errors: string[];
}

/** Headless Chromium with a fresh user-data dir. */
export async function launch(): Promise<Browser> {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  context.setDefaultTimeout(20_000);
  const open: Page[] = [];
  return {
    context,
    async page(viewport) {
      const page = await context.newPage();
      open.push(page);
      if (viewport) await page.setViewportSize(viewport);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      return { page, errors };
    },
    async closeTabs() {
      await Promise.all(open.splice(0).map((p) => p.close()));
    },
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in with `token` from the sign-in form (keyboard only: type, then Enter). */
export async function signIn(tab: Tab, baseUrl: string, token: string): Promise<void> {
  await tab.page.goto(`${baseUrl}/admin/ui`);
  await tab.page.locator('#token').fill(token);
  await tab.page.locator('#token').press('Enter');
  await tab.page.locator('nav.side').waitFor();
}

/**
 * Errors a test did not provoke on purpose: the browser logs every non-2xx
 * answer (a wrong token's 401, a refused change's 400) as a console error.
 */
export function unexpected(errors: readonly string[], expected: number[] = [401]): string[] {
  return errors.filter(
    (e) => !expected.some((s) => e.includes(`the server responded with a status of ${s}`)),
  );
}
