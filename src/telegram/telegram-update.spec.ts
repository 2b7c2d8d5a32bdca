import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyUpdate } from './telegram-update.js';

const BOT = 'rampart_demo_bot';
/** Only the fields a case names (toEqual: an expected undefined matches a missing field). */
function pick(o: object | undefined, expected: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(expected).map((k) => [k, (o as Record<string, unknown>)?.[k]]),
  );
}

function fx(name: string): unknown {
  return JSON.parse(
    readFileSync(new URL(`../../test/fixtures/telegram/${name}.json`, import.meta.url), 'utf8'),
  );
}

describe(classifyUpdate.name, () => {
  it.each([
    [
      'message-private-help',
      {
        kind: 'message',
        userId: '111111111',
        chatId: '111111111',
        chatType: 'private',
        action: '/help',
        args: '',
      },
    ],
    [
      'message-group-search-botname',
      {
        kind: 'message',
        userId: '222222222',
        chatId: '-4001234567',
        chatType: 'group',
        action: '/search',
        args: 'berlin',
      },
    ],
    [
      'message-supergroup-ask',
      {
        kind: 'message',
        chatType: 'supergroup',
        action: '/ask',
        args: 'what is a bloom filter?',
        threadId: 7,
      },
    ],
    [
      'message-supergroup-other-bot',
      { kind: 'message', chatType: 'supergroup', action: undefined },
    ],
    ['message-group-text', { kind: 'message', chatType: 'group', action: undefined }],
    [
      'edited-message',
      { kind: 'edited_message', userId: '111111111', action: '/search', args: 'london' },
    ],
    [
      'callback-query',
      {
        kind: 'callback_query',
        userId: '111111111',
        chatId: '111111111',
        action: 'callback',
        callbackQueryId: '4382bfdwdsb323b2d9',
      },
    ],
    [
      'inline-query',
      {
        kind: 'inline_query',
        userId: '111111111',
        chatId: undefined,
        chatType: 'sender',
        action: 'inline',
        args: 'berl',
      },
    ],
    [
      'my-chat-member',
      { kind: 'my_chat_member', userId: '333333333', chatId: '-1001234567890', action: undefined },
    ],
    [
      'channel-post',
      {
        kind: 'channel_post',
        userId: undefined,
        chatId: '-1009876543210',
        chatType: 'channel',
        action: '/search',
      },
    ],
    ['unknown-kind', { kind: 'unknown', userId: undefined, chatId: undefined }],
  ])('should classify %s', (name, expected) => {
    expect(pick(classifyUpdate(fx(name), BOT), expected)).toEqual(expected);
  });

  it('should strip @botname only when it names this bot, case-insensitively', () => {
    const u = fx('message-group-search-botname') as { message: { text: string } };
    u.message.text = '/Search@Rampart_Demo_Bot paris';
    expect(classifyUpdate(u, BOT)?.action).toBe('/search');
    expect(classifyUpdate(u, undefined)?.action).toBeUndefined();
  });

  it('should refuse anything that is not an update', () => {
    for (const body of [
      null,
      'x',
      [],
      {},
      { update_id: '1' },
      { update_id: -5 },
      { update_id: 1.5 },
    ])
      expect(classifyUpdate(body, BOT)).toBeUndefined();
  });

  it('should not trust ill-typed ids or chats', () => {
    const u = {
      update_id: 1,
      message: { from: { id: 'x' }, chat: { id: {}, type: 'private' }, text: '/help' },
    };
    const expected = { kind: 'message', userId: undefined, chatId: undefined, action: '/help' };
    expect(pick(classifyUpdate(u, BOT), expected)).toEqual(expected);
  });
});
