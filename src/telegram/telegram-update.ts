import type { Chat, Message, Update } from 'grammy/types';

/** The update kinds Rampart tells apart; everything else is `unknown` (answered 200, counted). */
export const UPDATE_KINDS = [
  'message',
  'edited_message',
  'callback_query',
  'inline_query',
  'my_chat_member',
  'channel_post',
  'unknown',
] as const;
export type UpdateKind = (typeof UPDATE_KINDS)[number];

/** What the locks and the modes need of one update, read once per request. */
export interface ClassifiedUpdate {
  updateId: number;
  kind: UpdateKind;
  /** Sender (`from.id`), as a decimal string; absent for channel posts and unknown shapes. */
  userId?: string;
  /** Chat id (numeric, as a string) and its type, when the update belongs to a chat. */
  chatId?: string;
  chatType?: Chat['type'] | 'sender';
  /**
   * The action the limits see: a command (`/search`, `@botname` stripped), `callback`
   * for a callback query, `inline` for an inline query, else undefined.
   */
  action?: string;
  /** Text after the command (trimmed), or the inline query. */
  args: string;
  /** The callback query's id (for answerCallbackQuery). */
  callbackQueryId?: string;
  /** Forum topic of the message, so a reply lands in the same thread. */
  threadId?: number;
  /** The raw update, as grammY types it. */
  update: Update;
}

/** Telegram's command syntax: `/cmd` or `/cmd@botname`, 1–32 of a-z 0-9 _. */
const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{3,64}))?(?:\s+([\s\S]*))?$/;

/**
 * Classifies an update body. Returns undefined for anything that is not an
 * update (no integer `update_id`): the caller answers 200 and counts it.
 * `botUsername` decides whose command a `/cmd@name` is: a command addressed
 * to another bot is not an action of this one.
 */
export function classifyUpdate(body: unknown, botUsername?: string): ClassifiedUpdate | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const update = body as Update;
  if (!Number.isSafeInteger(update.update_id) || update.update_id < 0) return undefined;
  const base = { updateId: update.update_id, args: '', update };
  if (isObject(update.message)) return fromMessage('message', update.message, base, botUsername);
  if (isObject(update.edited_message))
    return fromMessage('edited_message', update.edited_message, base, botUsername);
  if (isObject(update.channel_post))
    return fromMessage('channel_post', update.channel_post, base, botUsername);
  const cq = update.callback_query;
  if (isObject(cq)) {
    const chat = isObject(cq.message) ? cq.message.chat : undefined;
    return {
      ...base,
      kind: 'callback_query',
      userId: idOf(cq.from),
      ...chatOf(chat),
      action: 'callback',
      callbackQueryId: typeof cq.id === 'string' ? cq.id : undefined,
    };
  }
  const iq = update.inline_query;
  if (isObject(iq)) {
    return {
      ...base,
      kind: 'inline_query',
      userId: idOf(iq.from),
      chatType: iq.chat_type,
      action: 'inline',
      args: typeof iq.query === 'string' ? iq.query.trim() : '',
    };
  }
  const mcm = update.my_chat_member;
  if (isObject(mcm))
    return { ...base, kind: 'my_chat_member', userId: idOf(mcm.from), ...chatOf(mcm.chat) };
  return { ...base, kind: 'unknown' };
}

function fromMessage(
  kind: 'message' | 'edited_message' | 'channel_post',
  m: Message,
  base: Pick<ClassifiedUpdate, 'updateId' | 'args' | 'update'>,
  botUsername: string | undefined,
): ClassifiedUpdate {
  const out: ClassifiedUpdate = {
    ...base,
    kind,
    userId: idOf(m.from),
    ...chatOf(m.chat),
    threadId: Number.isSafeInteger(m.message_thread_id) ? m.message_thread_id : undefined,
  };
  const cmd = typeof m.text === 'string' ? COMMAND.exec(m.text.trim()) : null;
  if (!cmd) return out;
  const [, name, target, rest] = cmd;
  // `/cmd@other_bot` in a group is addressed to another bot: not a command of this one.
  if (target !== undefined && target.toLowerCase() !== botUsername?.toLowerCase()) return out;
  return { ...out, action: `/${name!.toLowerCase()}`, args: (rest ?? '').trim() };
}

function chatOf(chat: Chat | undefined): Pick<ClassifiedUpdate, 'chatId' | 'chatType'> {
  if (!isObject(chat) || !Number.isSafeInteger(chat.id)) return {};
  return { chatId: String(chat.id), chatType: chat.type };
}

function idOf(user: { id?: unknown } | undefined): string | undefined {
  return isObject(user) && Number.isSafeInteger(user.id) ? String(user.id) : undefined;
}

function isObject<T>(v: T | undefined | null): v is T & object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
