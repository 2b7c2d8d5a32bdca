// Makes docs/img/console.png: starts the built service (npm run build) on a free port, sends a
// minute of mixed traffic (good queries, junk keys the Bloom filter stops, a burst the rate
// limiter refuses, a lock in shadow), then photographs the console's overview in headless
// Chromium. Run it with `npm run screenshot`.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadAppConfig } from '../../dist/src/app.config.js';
import { createApp } from '../../dist/src/app.factory.js';
import { createPino } from '../../dist/src/logging/logger.js';

const SECONDS = Number(process.env.SCREENSHOT_SECONDS ?? 60);
const OUT = 'docs/img/console.png';
const token = randomBytes(24).toString('hex');

// REDIS_URL (and RAMPART_ENV) from the environment, when given, show the Redis figures too.
const fromEnv = Object.fromEntries(
  ['REDIS_URL', 'RAMPART_ENV', 'HTTP_ADAPTER'].flatMap((k) =>
    process.env[k] ? [[k, process.env[k]]] : [],
  ),
);
const base = loadAppConfig({
  ...fromEnv,
  ADMIN_TOKEN: token,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
  REDIS_COMMAND_TIMEOUT_MS: '1000',
});
const config = {
  ...base,
  sections: {
    ...base.sections,
    admin: { seriesStepMs: 1000, statsIntervalMs: 500, redisSampleMs: 2000 },
  },
};
const app = await createApp(config, { logger: createPino('silent') });
await app.listen(0, '127.0.0.1');
const url = `http://127.0.0.1:${app.getHttpServer().address().port}`;
const admin = (method, path, body) =>
  fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });

const words = ['paris', 'london', 'tokyo', 'lima', 'oslo', 'cairo', 'delhi', 'quito'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
await admin('PATCH', '/admin/policies/search-item/locks/rateLimit', {
  mode: 'shadow',
  until: new Date(Date.now() + 3_600_000).toISOString(),
});
const started = Date.now();
for (let s = 0; Date.now() - started < SECONDS * 1000; s++) {
  const burst = s % 20 >= 12 && s % 20 < 16; // a flood now and then: the rate limiter refuses it
  const n = burst ? 40 : 6 + (s % 5);
  const calls = [];
  for (let i = 0; i < n; i++) {
    const q = i % 3 === 2 ? `zq${randomBytes(3).toString('hex')}` : words[(s + i) % words.length];
    calls.push(fetch(`${url}/v1/search?q=${q}&limit=3`).then((r) => r.arrayBuffer()));
    if (i % 4 === 0)
      calls.push(fetch(`${url}/v1/search/items/${2988507 + (i % 3)}`).then((r) => r.arrayBuffer()));
  }
  await Promise.all(calls);
  await sleep(1000);
}

const dir = mkdtempSync(join(tmpdir(), 'rampart-shot-'));
const context = await chromium.launchPersistentContext(dir, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
  viewport: { width: 1280, height: 900 },
  colorScheme: 'light',
});
const page = context.pages()[0] ?? (await context.newPage());
await page.goto(`${url}/admin/ui`);
await page.locator('#token').fill(token);
await page.locator('#token').press('Enter');
await page.locator('nav.side').waitFor();
await page.waitForTimeout(6000);
mkdirSync('docs/img', { recursive: true });
await page.screenshot({ path: OUT });
await context.close();
rmSync(dir, { recursive: true, force: true });
await app.close();
console.log(`wrote ${OUT} (${SECONDS} s of traffic)`);
