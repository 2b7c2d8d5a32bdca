/**
 * The console's Telegram pages (Bots, Queues, Dead letters) against two
 * instances on one Redis: jobs are sent through one, the page reads the
 * other, and the fake Bot API (a loopback server) answers the sends — a 429,
 * a 400 and a 403 on cue, and the replayed jobs arrive at it again.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient } from '../support/admin-client.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { addSecret } from '../support/secret-scan.js';
import {
  Notify,
  OutboundSetup,
  notice,
  outboundSetup,
  ready,
  token,
} from '../support/telegram-outbound.js';
import { Browser, Tab, chromiumAvailable, launch, signIn, unexpected } from './support/browser.js';

const BOTS = [
  { id: 'news1', scope: 'news', token: token(1, 'Con') },
  { id: 'news2', scope: 'news', token: token(2, 'Con') },
  { id: 'spare1', scope: 'spare', token: token(3, 'Con') },
];
const NEW_TOKEN = token(1, 'Rot');
/** The pages poll every 2 s (dead letters 5 s): a poll of the page waits for a few of theirs. */
const WAIT = { timeout: 15_000, interval: 250 };

interface Bot {
  id: string;
  token: string;
  state: string;
  answers_15m: number;
  rate_limited_15m: number;
}

const sentTo = (api: FakeBotApi, chat: string) =>
  api.calls.filter((c) => c.method === 'sendMessage' && String(c.body.chat_id) === chat).length;

describe.skipIf(!chromiumAvailable() || !redisUrl()).each(ADAPTERS)(
  'console Telegram pages (page on %s, sends through the other adapter)',
  (adapter) => {
    let api: FakeBotApi;
    let setup: OutboundSetup;
    let sender: RunningApp;
    let reader: RunningApp;
    let notify: Notify;
    let admin: AdminClient;
    let browser: Browser;

    beforeAll(async () => {
      api = await startFakeBotApi();
      setup = outboundSetup(BOTS, api.url);
      const env = {
        ...setup.env,
        ADMIN_TOKEN,
        REDIS_URL: redisUrl(),
        RAMPART_ENV: uniqueEnv('contg'),
      };
      const other = ADAPTERS.find((a) => a !== adapter)!;
      [sender, reader, browser] = await Promise.all([
        startApp({ ...env, HTTP_ADAPTER: other }),
        startApp({ ...env, HTTP_ADAPTER: adapter }),
        launch(),
      ]);
      notify = new Notify(sender.url, setup.app);
      await ready(notify);
      admin = new AdminClient(reader);
    });
    afterEach(() => browser?.closeTabs());
    afterAll(async () => {
      await browser?.close();
      await Promise.all([sender?.close(), reader?.close()]);
      await api?.close();
    });

    const open = async (page: string): Promise<Tab> => {
      const tab = await browser.page();
      await signIn(tab, reader.url, ADMIN_TOKEN);
      await tab.page.goto(`${reader.url}/admin/ui#/${page}`);
      await tab.page.locator('main h1').waitFor();
      return tab;
    };
    const bots = async () => (await admin.get<{ bots: Bot[] }>('/admin/telegram/bots')).body.bots;

    it('should show each bot with its 429 ratio, cooldown time left and queue, and rotate a token without showing it', async () => {
      api.rule({ chat: '811', status: 429, retryAfter: 1, times: 1 });
      const sent = notice(811, 'news');
      expect((await notify.post([sent])).status).toBe(202);
      await notify.settled([sent.job_id], ['sent']);

      const tab = await open('bots');
      // The answers were counted by the sending instance; this one reads them from Redis.
      const listed = await bots();
      expect(listed.reduce((s, b) => s + b.rate_limited_15m, 0)).toBe(1);
      expect(listed.reduce((s, b) => s + b.answers_15m, 0)).toBe(2);
      for (const b of listed)
        await expect
          .poll(() => tab.page.getByTestId(`bot-429-${b.id}`).textContent(), WAIT)
          .toContain(`(${b.rate_limited_15m} of ${b.answers_15m})`);
      const limited = listed.find((b) => b.rate_limited_15m === 1)!;
      expect(await tab.page.getByTestId(`bot-429-${limited.id}`).textContent()).toMatch(
        limited.answers_15m === 1 ? /^100\.0 %/ : /^50\.0 %/,
      );

      // The news bots disabled (a job waits in their queue); the spare one cooling down for 10 minutes.
      await admin.call('PUT', '/admin/telegram/bots/news1/state', { state: 'disabled' });
      await admin.call('PUT', '/admin/telegram/bots/news2/state', { state: 'disabled' });
      const until = new Date(Date.now() + 10 * 60_000).toISOString();
      await admin.call('PUT', '/admin/telegram/bots/spare1/state', { state: 'cooldown', until });
      const waiting = notice(812, 'news');
      expect((await notify.post([waiting])).status).toBe(202);
      await tab.page.getByTestId('bot-state-news1').getByText('disabled').waitFor();
      await expect
        .poll(() => tab.page.getByTestId('bot-state-spare1').textContent(), WAIT)
        .toMatch(/^cooldown ends in (9|10) min/);
      await expect
        .poll(() => tab.page.getByTestId('bot-queue-news1').textContent(), WAIT)
        .toBe('1');

      const q = await open('queues');
      await expect.poll(() => q.page.getByTestId('queue-jobs-news').textContent(), WAIT).toBe('1');
      await expect
        .poll(() => q.page.getByTestId('queue-lag-news').textContent(), WAIT)
        .toMatch(/\d+(\.\d)? s|\d+ ms/);
      // Counts only: no chat, no token in the answer.
      const answer = (
        await admin.get<{ queues: Record<string, unknown>[] }>('/admin/telegram/queues')
      ).body;
      expect(answer.queues).toContainEqual(
        expect.objectContaining({
          queue: 'news',
          kind: 'scope',
          bots: ['news1', 'news2'],
          jobs: 1,
          lanes: 1,
        }),
      );
      for (const v of answer.queues)
        expect(Object.keys(v).sort()).toEqual(['bots', 'jobs', 'kind', 'lag_ms', 'lanes', 'queue']);

      // Rotation: the new token goes into the bot's file; the form names no token, the page shows none.
      addSecret(NEW_TOKEN, 'rotated bot token news1');
      writeFileSync(setup.tokenFiles.news1!, `${NEW_TOKEN}\n`);
      const before = (await bots()).find((b) => b.id === 'news1')! as Bot & { gen: number };
      await tab.page.getByLabel('Bot', { exact: true }).selectOption('news1');
      await tab.page.getByLabel('Drain (seconds)').fill('5');
      await tab.page.getByRole('button', { name: 'Rotate token' }).click();
      const done = tab.page
        .getByRole('status')
        .getByText(`news1: token rotated (${before.token} → `);
      await done.waitFor();
      // Fingerprints only: the old one, then the new token's.
      expect(await done.textContent()).toMatch(
        new RegExp(`\\(${before.token} → (?!${before.token})[0-9a-f]{12}\\)`),
      );
      const after = (await bots()).find((b) => b.id === 'news1')! as Bot & { gen: number };
      expect(after.gen).toBe(before.gen + 1);
      for (const secret of [BOTS[0]!.token, NEW_TOKEN, ...BOTS.map((b) => b.token.split(':')[1]!)])
        expect(await tab.page.content()).not.toContain(secret);

      // Let the waiting job go (the queue drains) before the next test.
      await admin.call('PUT', '/admin/telegram/bots/news1/state', { state: 'active' });
      await admin.call('PUT', '/admin/telegram/bots/news2/state', { state: 'active' });
      await notify.settled([waiting.job_id], ['sent']);
      expect(unexpected(tab.errors)).toEqual([]);
      expect(unexpected(q.errors)).toEqual([]);
    });

    it('should filter dead letters by reason and app, and replay one, the selected and all of a reason after a confirmation', async () => {
      for (const b of BOTS)
        await admin.call('PUT', `/admin/telegram/bots/${b.id}/state`, { state: 'active' });
      api.rule({ chat: '821', status: 400, times: 1 });
      api.rule({ chat: '823', status: 400, times: 1 });
      // Both bots of the scope refuse (a 403 hands the job to the scope's other bot first).
      api.rule({ chat: '822', status: 403, times: 2 });
      const [r1, r2] = [notice(821, 'news'), notice(823, 'news')];
      const f1 = notice(822, 'news');
      const theirs = new Notify(sender.url, setup.other);
      expect((await notify.post([r1, r2])).status).toBe(202);
      expect((await theirs.post([f1])).status).toBe(202);
      await notify.settled([r1.job_id, r2.job_id], ['dead']);
      await theirs.settled([f1.job_id], ['dead']);

      const tab = await open('dead-letters');
      const p = tab.page;
      for (const j of [r1, r2, f1]) await p.getByTestId(`dead-${j.job_id}`).waitFor();
      await p.getByLabel('App').selectOption(setup.other.appId);
      await p.getByTestId(`dead-${r1.job_id}`).waitFor({ state: 'detached' });
      expect(await p.getByTestId(`dead-${f1.job_id}`).isVisible()).toBe(true);
      await p.getByLabel('App').selectOption('');
      await p.getByLabel('Reason').selectOption('rejected');
      await p.getByTestId(`dead-${f1.job_id}`).waitFor({ state: 'detached' });
      expect(await p.getByTestId(`dead-${r2.job_id}`).isVisible()).toBe(true);

      // One: nothing leaves before "Yes".
      const row = p.getByTestId(`dead-${r1.job_id}`);
      await row.getByRole('button', { name: 'Replay' }).click();
      await row.getByText(`Queue ${r1.job_id} again?`).waitFor();
      await new Promise((r) => setTimeout(r, 300));
      expect(sentTo(api, '821')).toBe(1);
      await row.getByRole('button', { name: 'Yes' }).click();
      await api.waitFor(() => sentTo(api, '821') === 2);
      await p
        .getByRole('status')
        .getByText(`Replay of ${r1.job_id}: 1 of 1 queued again`)
        .waitFor();

      // The selected.
      await p.getByLabel(`Pick ${r2.job_id}`).check();
      await p.getByRole('button', { name: 'Replay selected (1)' }).click();
      await p.getByRole('button', { name: 'Yes' }).click();
      await api.waitFor(() => sentTo(api, '823') === 2);

      // All of a reason: the user has unblocked the bots first (my_chat_member at each bot's webhook
      // clears its 403 mark; without it the replay would end dead again with no call).
      for (const b of ['news1', 'news2']) expect((await unblock(sender, b, 822)).status).toBe(200);
      await p.getByLabel('Reason').selectOption('forbidden');
      await p.getByRole('button', { name: 'Replay all forbidden (1)' }).click();
      await p.getByRole('button', { name: 'Yes' }).click();
      await api.waitFor(() => sentTo(api, '822') === 3);
      await notify.settled([r1.job_id, r2.job_id], ['sent']);
      await theirs.settled([f1.job_id], ['sent']);
      expect(unexpected(tab.errors)).toEqual([]);
    });

    it('should lift a cooldown, pause and resume a bot from the Bots page, each only after a Yes', async () => {
      for (const b of BOTS)
        await admin.call('PUT', `/admin/telegram/bots/${b.id}/state`, { state: 'active' });
      const until = new Date(Date.now() + 10 * 60_000).toISOString();
      await admin.call('PUT', '/admin/telegram/bots/spare1/state', { state: 'cooldown', until });
      const stateOf = async (id: string) => (await bots()).find((b) => b.id === id)!.state;

      const tab = await open('bots');
      const p = tab.page;
      // Lift: nothing changes before "Yes".
      const spare = p.getByTestId('bot-actions-spare1');
      await spare.getByRole('button', { name: 'Lift cooldown' }).click();
      await spare.getByText("End spare1's cooldown now?", { exact: false }).waitFor();
      await new Promise((r) => setTimeout(r, 300));
      expect(await stateOf('spare1')).toBe('cooldown');
      await spare.getByRole('button', { name: 'Yes' }).click();
      await p.getByRole('status').getByText('spare1: cooldown lifted').waitFor();
      expect(await stateOf('spare1')).toBe('active');
      await p.getByTestId('bot-state-spare1').getByText('active').waitFor();
      expect(await spare.getByRole('button', { name: 'Lift cooldown' }).count()).toBe(0);

      // Pause: "No" changes nothing; "Yes" disables the bot on every instance (the state is in Redis).
      const news2 = p.getByTestId('bot-actions-news2');
      await news2.getByRole('button', { name: 'Pause' }).click();
      await news2.getByRole('button', { name: 'No' }).click();
      expect(await stateOf('news2')).toBe('active');
      await news2.getByRole('button', { name: 'Pause' }).click();
      await news2.getByRole('button', { name: 'Yes' }).click();
      await p.getByTestId('bot-state-news2').getByText('disabled').waitFor();
      const seen = (await new AdminClient(sender).get<{ bots: Bot[] }>('/admin/telegram/bots')).body
        .bots;
      expect(seen.find((b) => b.id === 'news2')!.state).toBe('disabled');

      // Resume.
      await news2.getByRole('button', { name: 'Resume' }).click();
      await news2.getByRole('button', { name: 'Yes' }).click();
      await p.getByTestId('bot-state-news2').getByText('active').waitFor();
      expect(await stateOf('news2')).toBe('active');
      const audit = await admin.get<{ entries: { action: string; summary: string }[] }>(
        '/admin/audit',
      );
      const changes = audit.body.entries
        .filter((e) => e.action === 'telegram.bot_state')
        .map((e) => e.summary);
      expect(changes).toEqual(
        expect.arrayContaining(['bot spare1: active', 'bot news2: disabled', 'bot news2: active']),
      );
      expect(unexpected(tab.errors)).toEqual([]);
    });
  },
);

let updateId = 9_000;
/** Telegram's my_chat_member for a private chat whose user has unblocked the bot, at the bot's webhook. */
function unblock(app: RunningApp, bot: string, chat: number): Promise<Response> {
  const user = { id: chat, is_bot: false, first_name: 'U' };
  const me = { id: 7, is_bot: true, first_name: 'Bot' };
  const update = {
    update_id: ++updateId,
    my_chat_member: {
      chat: { id: chat, type: 'private', first_name: 'U' },
      from: user,
      date: Math.floor(Date.now() / 1000),
      old_chat_member: { user: me, status: 'kicked' },
      new_chat_member: { user: me, status: 'member' },
    },
  };
  return fetch(`${app.url}/telegram/${bot}/outbound-path-secret-0123`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-telegram-bot-api-secret-token': 'outbound_secret_1',
    },
    body: JSON.stringify(update),
  });
}
