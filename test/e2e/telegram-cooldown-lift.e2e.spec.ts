/**
 * Lifting a bot's cooldown early through the admin API frees the jobs waiting for it, on the embedded
 * (memory) queue and on a real Redis: a 429 with a retry_after of an hour parks them, and only the lift can
 * deliver them within the test (the fake Bot API says what it received).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOUND_STORES, OutboundRig, parkedBehind429 } from '../support/outbound-rig.js';
import { token } from '../support/telegram-outbound.js';

const BOT = { id: 'lift', scope: 'alerts', token: token(7, 'L') };

describe.each(OUTBOUND_STORES)('lifting a cooldown early (%s store)', (store) => {
  let rig: OutboundRig | undefined;

  beforeAll(async () => {
    rig = await OutboundRig.open(store, 'tglift');
    await rig?.start([BOT]);
  });
  afterAll(() => rig?.close());

  it('should send the waiting jobs right after the lift, not at the old end', async () => {
    if (!rig) return;
    // Chat 51's head waits for the hour-long cooldown (its second job queues behind it); chat 52's job is
    // not even claimed (the worker knows its only bot cools down).
    const ids = await parkedBehind429(rig, BOT, 51, 5_000);
    const bot = await rig.admin.get<{ bots: { id: string; state: string }[] }>(
      '/admin/telegram/bots',
    );
    expect(bot.body.bots.find((b) => b.id === 'lift')?.state).toBe('cooldown');

    const lifted = await rig.admin.call('PUT', '/admin/telegram/bots/lift/state', {
      state: 'active',
    });
    expect(lifted.status).toBe(200);
    const views = await rig.notify.settled(ids, ['sent'], 10_000);
    expect(views.map((v) => v.state)).toEqual(['sent', 'sent', 'sent']);
    const texts = rig.texts(BOT.token);
    // The refused first try, then each job once; chat 51 in order.
    expect(texts.filter((t) => t === ids[0])).toHaveLength(2);
    expect(texts.indexOf(ids[1])).toBeGreaterThan(texts.lastIndexOf(ids[0]));
    expect(texts).toContain(ids[2]);
  });
});
