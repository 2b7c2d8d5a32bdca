/**
 * The sender against a Bot API as strict as Telegram's flood control
 * (strict-bot-api.mjs, windows scaled to 500 ms): paced sends, and a 429 that
 * stops every send of the token that has not left yet — on this worker at
 * once, on the other workers through the gate — with one and two workers on
 * one Redis. Behaviour, not wall-clock: what reached the fake inside a cooldown, and, in the order the
 * sender's own events came (diagnostics_channel, in this process), which sends were let go after their
 * worker knew of the 429 — none may be, whatever the machine's load; the others were in flight.
 */
import { createHash } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { type StrictBotApi, startStrictBotApi } from '../support/strict-bot-api.mjs';
import {
  Notify,
  SLOW_MACHINE,
  notice,
  outboundSetup,
  ready,
  token,
} from '../support/telegram-outbound.js';

const A = token(7, 'S');
const B = token(8, 'S');
const BOTS = [
  { id: 'sa', scope: 'strict', token: A },
  { id: 'sb', scope: 'strict', token: B },
];
const CONCURRENCY = 6;
/** Scaled to the fake's 500 ms windows (10 per bot, 1 per chat): the shipped settings × 2. */
const OUTBOUND = {
  ...SLOW_MACHINE,
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

    type Event = { kind: 'cooled' | 'depart'; worker: number; bot: string; at: number };
    type Cooled = Event & { until: number; from: 'answer' | 'gate' };
    let events: Event[] = [];
    const record = (kind: Event['kind']) => (m: unknown) =>
      events.push({ kind, at: Date.now(), ...(m as { worker: number; bot: string }) });
    const onCooled = record('cooled');
    const onDepart = record('depart');
    beforeEach(() => {
      events = [];
      subscribe('rampart:telegram-outbound:cooled', onCooled);
      subscribe('rampart:telegram-outbound:depart', onDepart);
    });
    afterEach(() => {
      unsubscribe('rampart:telegram-outbound:cooled', onCooled);
      unsubscribe('rampart:telegram-outbound:depart', onDepart);
    });

    /**
     * Sends of bot `sa` a worker let go after it knew of a cooldown and before that cooldown's end (the
     * sender's events in their order: a send let go before its worker knew was in flight).
     */
    function leftWhileKnown(): Event[] {
      const known = new Map<number, number>();
      const late: Event[] = [];
      for (const e of events.filter((x) => x.bot === 'sa')) {
        if (e.kind === 'cooled')
          known.set(e.worker, Math.max(known.get(e.worker) ?? 0, (e as Cooled).until));
        else if (e.at < (known.get(e.worker) ?? 0)) late.push(e);
      }
      return late;
    }

    const cooledBy = (from: Cooled['from']) =>
      events.filter((e): e is Cooled => e.kind === 'cooled' && (e as Cooled).from === from);

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
      expect(views.filter((v) => v.state !== 'sent')).toEqual([]);
      const cd = api.cooldowns.find((c) => c.scope === 'injected')!;
      expect(cd).toBeDefined();
      // Every send that reached the fake was let go through the departure check (no path around it).
      const sentA = api.calls.filter((c) => c.token === A).length;
      expect(events.filter((e) => e.kind === 'depart' && e.bot === 'sa').length).toBe(sentA);
      return cd;
    }

    it('should send 120 jobs to 60 chats with no send inside a cooldown after a 429, in flight bounded', async () => {
      await run(1, 120, 60);
      expect(cooledBy('answer').length).toBeGreaterThan(0);
      // Nothing left once the worker had read the 429; what reached the fake inside the cooldown had left
      // before (in flight): at most the concurrency.
      expect(leftWhileKnown()).toEqual([]);
      expect(api.violations.length).toBeLessThanOrEqual(CONCURRENCY);
    });

    it('should pause the token on every worker after a 429 one of them got (two workers, one redis)', async () => {
      await run(2, 120, 60);
      // One worker read the 429; the other learnt it too: from the gate (its charge or departure check), or
      // from a 429 of its own to a send that was already in flight.
      const learnt = events.filter((e) => e.kind === 'cooled' && e.bot === 'sa');
      expect(new Set(learnt.map((e) => e.worker)).size).toBe(2);
      expect(leftWhileKnown()).toEqual([]);
      // In flight on both workers when they learnt it: at most their concurrency.
      expect(api.violations.length).toBeLessThanOrEqual(2 * CONCURRENCY);
    });
  },
);

/** Chats (from 9500 up) that rendezvous hashing gives to bot `sa` before `sb` (bot-routing.ts). */
function chatsOfA(n: number): number[] {
  const w = (bot: string, c: number) =>
    createHash('sha1').update(`${bot}|${c}`).digest().readUInt32BE(0);
  const out: number[] = [];
  for (let c = 9500; out.length < n; c++) if (w('sa', c) > w('sb', c)) out.push(c);
  return out;
}

describe.skipIf(!redisUrl())('telegram outbound spill-over', { timeout: 60_000 }, () => {
  let api: StrictBotApi | undefined;
  let app: RunningApp | undefined;
  afterEach(async () => {
    await app?.close();
    await api?.close();
  });

  it("should send through the next bot of the scope when the chat's bot is full, inside both limits", async () => {
    api = await startStrictBotApi({ perBot: 10, perChat: 1, windowMs: 500, retryAfter: 1 });
    // A slow bot (5/s): its line holds 2 lanes; the other lanes claimed would only go back to the queue.
    const s = outboundSetup(BOTS, api.url, {
      ...OUTBOUND,
      concurrency: 16,
      buckets: { bot: { rate: '5/s', burst: 1 }, private: { rate: '1.8/s', burst: 1 } },
    });
    app = await startApp({ ...s.env, REDIS_URL: redisUrl(), RAMPART_ENV: uniqueEnv('tgs') });
    const notify = new Notify(app.url, s.app);
    await ready(notify);
    const all = chatsOfA(30).map((c) => notice(c, 'strict'));
    await notify.post(all);
    const views = await notify.settled(
      all.map((j) => j.job_id),
      ['sent', 'dead'],
      40_000,
    );
    expect(views.filter((v) => v.state !== 'sent')).toEqual([]);
    // Every chat ranks `sa` first; `sb` took what `sa` had no slot for, each chat once.
    const ok = api.calls.filter((c) => c.status === 200);
    expect(ok.filter((c) => c.token === B).length).toBeGreaterThan(0);
    expect(new Set(ok.map((c) => c.chat)).size).toBe(30);
    expect(ok.length).toBe(30);
    expect(api.cooldowns).toEqual([]);
  });
});
