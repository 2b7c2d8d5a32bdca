/**
 * The sender against a Bot API as strict as Telegram's flood control
 * (strict-bot-api.mjs, windows scaled to 500 ms): paced sends, and a 429 that
 * stops every send of the token that has not left yet — on this worker at
 * once, on the other workers through the gate — with one and two workers on
 * one Redis. Behaviour, not wall-clock: what reached the fake inside a cooldown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { type StrictBotApi, startStrictBotApi } from '../support/strict-bot-api.mjs';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const A = token(7, 'S');
const B = token(8, 'S');
const BOTS = [
  { id: 'sa', scope: 'strict', token: A },
  { id: 'sb', scope: 'strict', token: B },
];
const CONCURRENCY = 6;
/** Scaled to the fake's 500 ms windows (10 per bot, 1 per chat): the shipped settings × 2. */
const OUTBOUND = {
  concurrency: CONCURRENCY,
  reserveAheadMs: 150,
  departWindowMs: 520,
  departMax: 10,
  buckets: { bot: { rate: '18/s', burst: 1 }, private: { rate: '1.8/s', burst: 1 } },
};

describe.skipIf(!redisUrl())(
  'telegram outbound under a strict limiter',
  { timeout: 60_000 },
  () => {
    let api: StrictBotApi;
    const apps: RunningApp[] = [];
    afterEach(async () => {
      await Promise.all(apps.splice(0).map((a) => a.close()));
      await api.close();
    });

    async function run(workers: number, jobs: number, chats: number) {
      api = await startStrictBotApi({ perBot: 10, perChat: 1, windowMs: 500, retryAfter: 1 });
      const s = outboundSetup(BOTS, api.url, OUTBOUND);
      const env = { ...s.env, REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgs') };
      for (let i = 0; i < workers; i++) apps.push(await startApp(env));
      const notify = new Notify(apps[0]!.url, s.app);
      await ready(notify);
      const all = Array.from({ length: jobs }, (_, i) => notice(9000 + (i % chats), 'strict'));
      for (let i = 0; i < all.length; i += 40) await notify.post(all.slice(i, i + 40));
      // A 429 for bot A once it is sending at full pace: the cooldown starts on this call.
      while (api.calls.filter((c) => c.token === A && c.status === 200).length < 15)
        await new Promise((r) => setTimeout(r, 10));
      api.inject(A, 1);
      const views = await notify.settled(
        all.map((j) => j.job_id),
        ['sent', 'dead'],
        40_000,
      );
      expect(views.every((v) => v.state === 'sent')).toBe(true);
      const cd = api.cooldowns.find((c) => c.scope === 'injected')!;
      expect(cd).toBeDefined();
      return { cd, inside: api.violations.filter((v) => !v.inFlight) };
    }

    it('should send 120 jobs to 60 chats with no send inside a cooldown after a 429, in flight bounded', async () => {
      const { inside } = await run(1, 120, 60);
      // Sends that left before the 429 was answered are in flight: at most the concurrency.
      expect(api.violations.filter((v) => v.inFlight).length).toBeLessThanOrEqual(CONCURRENCY);
      expect(inside).toEqual([]);
    });

    it('should pause the token on every worker after a 429 one of them got (two workers, one redis)', async () => {
      const { cd } = await run(2, 120, 60);
      // The other worker learns it through the gate: nothing of the token after the moment it was written.
      const late = api.violations.filter((v) => v.token === A && v.at > (cd.answeredAt ?? 0) + 50);
      expect(late).toEqual([]);
      expect(api.violations.length).toBeLessThanOrEqual(2 * CONCURRENCY);
      const during = api.calls.filter((c) => c.token === A && c.at > cd.at + 50 && c.at < cd.until);
      expect(during).toEqual([]);
    });
  },
);
