/**
 * The sender's series on /metrics after real sends against the fake Bot API
 * (what the alerts of deploy/prometheus/rules.yml read): a message sent, a
 * 429 counted by bot, method and chat type — never by chat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpAdapterName } from '../../src/http/http-adapters.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotApi, startFakeBotApi } from '../support/fake-bot-api.js';
import { sample } from '../support/metrics-sample.js';
import { Notify, notice, outboundSetup, ready, token } from '../support/telegram-outbound.js';

const BOT = { id: 'metered', scope: 'm', token: token(1, 'M') };
const GROUP = -1001234567;

describe.each(['express', 'fastify'] as HttpAdapterName[])('outbound metrics (%s)', (adapter) => {
  let api: FakeBotApi;
  let app: RunningApp;
  let notify: Notify;

  beforeAll(async () => {
    api = await startFakeBotApi();
    const s = outboundSetup([BOT], api.url);
    app = await startApp({ ...s.env, HTTP_ADAPTER: adapter }, { search: 'empty' });
    notify = new Notify(app.url, s.app);
    await ready(notify);
  });
  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('should count a send and a 429 in the rampart_telegram_out_* series', async () => {
    // The private chat's job first, sent; then the group's, answered 429. Not both at once: a 429 cools down
    // the whole token (send-outcome.ts), so a private job whose slot came after the 429's answer waited out
    // its 30 s — what a warm process (the second app of this file, or any file after another) always did.
    const [toGroup, toUser] = [notice(GROUP, 'm'), notice(601, 'm')];
    await notify.post({ jobs: [toUser] });
    await notify.settled([toUser.job_id]);
    api.rule({ token: BOT.token, chat: String(GROUP), status: 429, retryAfter: 30, times: 1 });
    await notify.post({ jobs: [toGroup] });
    let text = '';
    for (let i = 0; i < 200; i++) {
      text = await (await fetch(`${app.url}/metrics`)).text();
      if (sample(text, 'rampart_telegram_out_429_total', { bot: BOT.id })) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const base = { bot: BOT.id, method: 'sendMessage' };
    expect(sample(text, 'rampart_telegram_out_sent_total', { ...base, chat_type: 'private' })).toBe(
      1,
    );
    expect(sample(text, 'rampart_telegram_out_429_total', { ...base, chat_type: 'group' })).toBe(1);
    expect(
      sample(text, 'rampart_telegram_out_sent_total', { ...base, chat_type: 'group' }),
    ).toBeUndefined();
    expect(
      sample(text, 'rampart_telegram_out_queue_lag_seconds_count', {
        ...base,
        chat_type: 'private',
      }),
    ).toBe(1);
    expect(text).toMatch(/^rampart_telegram_out_queue_depth \d+/m);
    // Never by chat: no chat id in any series.
    expect(text).not.toContain(String(GROUP));
    expect(text).not.toContain('chat_id');
    expect((await notify.get(toGroup.job_id)).body.state).toMatch(/waiting|queued/);
  });
});
