import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import { classifyUpdate } from '../telegram-update.js';
import { ChatReach } from './chat-reach.js';
import { MemorySendGateStore } from './gate/memory-send-gate.store.js';
import type { ChargeRequest } from './gate/send-gate.store.js';

const bucket = { perSecond: 1000, burst: 10 };
const req = (bot: string, chatId: string): ChargeRequest => ({
  bot,
  chatId,
  method: 'sendMessage',
  weight: 1,
  sendId: `${bot}-${chatId}-${Math.random()}`,
  inflightMs: 1_000,
  buckets: { bot: bucket, chat: bucket },
});

let id = 0;
const member = (chat: number, status: string, type = 'private') =>
  classifyUpdate({
    update_id: ++id,
    my_chat_member: {
      chat: { id: chat, type },
      from: { id: 5, is_bot: false, first_name: 'U' },
      date: 1,
      old_chat_member: { user: { id: 7, is_bot: true, first_name: 'B' }, status: 'left' },
      new_chat_member: { user: { id: 7, is_bot: true, first_name: 'B' }, status },
    },
  })!;
const text = (chat: number, t: string, type = 'private') =>
  classifyUpdate({
    update_id: ++id,
    message: {
      message_id: 1,
      date: 1,
      chat: { id: chat, type },
      from: { id: 5, is_bot: false, first_name: 'U' },
      text: t,
    },
  })!;

describe(ChatReach.name, () => {
  const setup = () => {
    const gate = new MemorySendGateStore(new ManualClock());
    return { gate, reach: new ChatReach(gate) };
  };
  const refused = async (g: MemorySendGateStore, bot: string, chat: string) =>
    (await g.charge(req(bot, chat))).kind === 'refused';

  it('should clear the bot’s own mark when it is a member or administrator again', async () => {
    const { gate, reach } = setup();
    for (const [chat, status] of [
      [1, 'member'],
      [2, 'administrator'],
    ] as const) {
      await gate.markUnreachable('a', String(chat), 60_000);
      await gate.markUnreachable('b', String(chat), 60_000);
      await reach.learn('a', member(chat, status));
      expect(await refused(gate, 'a', String(chat))).toBe(false);
      // Another bot's mark for the same chat stays: the bot is the route's, not the update's.
      expect(await refused(gate, 'b', String(chat))).toBe(true);
    }
  });

  it('should mark the bot when it is kicked or has left, as a 403 would', async () => {
    const { gate, reach } = setup();
    await reach.learn('a', member(3, 'kicked'));
    await reach.learn('a', member(-4, 'left', 'group'));
    expect([await refused(gate, 'a', '3'), await refused(gate, 'a', '-4')]).toEqual([true, true]);
    expect(await refused(gate, 'b', '3')).toBe(false);
  });

  it('should clear on /start in a private chat only, and ignore other messages', async () => {
    const { gate, reach } = setup();
    for (const c of ['5', '-6', '7']) await gate.markUnreachable('a', c, 60_000);
    await reach.learn('a', text(5, '/start'));
    await reach.learn('a', text(-6, '/start', 'group'));
    await reach.learn('a', text(7, 'hello'));
    expect([
      await refused(gate, 'a', '5'),
      await refused(gate, 'a', '-6'),
      await refused(gate, 'a', '7'),
    ]).toEqual([false, true, true]);
  });
});
