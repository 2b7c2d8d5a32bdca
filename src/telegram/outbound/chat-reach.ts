import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ClassifiedUpdate } from '../telegram-update.js';
import { SEND_GATE_STORE, type SendGateStore, UNREACHABLE_MS } from './gate/send-gate.store.js';

/** `my_chat_member` statuses in which the bot can write to the chat again. */
const BACK = new Set(['member', 'administrator', 'creator']);
/** Statuses in which it cannot: the user blocked it (private chat), or it was removed. */
const GONE = new Set(['left', 'kicked']);

/**
 * What a verified update tells the sender about one bot reaching one chat (docs/telegram-outbound.md#unblock):
 * a `my_chat_member` showing the bot back (member, administrator) or the user's new `/start` to it clears the
 * bot's 403 mark for that chat; one showing it kicked or gone marks it, as a 403 would. Only the bot whose
 * webhook (or poller) got the update is touched — the bot comes from the verified route, never from the
 * update's body — so no one can clear or set another bot's marks, and no app can at all.
 */
@Injectable()
export class ChatReach {
  private readonly log = new Logger('TelegramOutbound');

  constructor(@Inject(SEND_GATE_STORE) private readonly gate: SendGateStore) {}

  /** Learns from one verified update of `botId`. Never throws: ingress must answer Telegram. */
  async learn(botId: string, u: ClassifiedUpdate): Promise<void> {
    const change = this.change(u);
    if (!change || u.chatId === undefined) return;
    try {
      if (change === 'back') await this.gate.clearUnreachable(botId, u.chatId);
      else await this.gate.markUnreachable(botId, u.chatId, UNREACHABLE_MS);
    } catch (e) {
      this.log.warn({ msg: 'chat reach not recorded', bot: botId, error: (e as Error).message });
    }
  }

  private change(u: ClassifiedUpdate): 'back' | 'gone' | undefined {
    if (u.kind === 'message' && u.action === '/start' && u.chatType === 'private') return 'back';
    if (u.kind !== 'my_chat_member') return undefined;
    const status = u.update.my_chat_member?.new_chat_member?.status;
    if (typeof status !== 'string') return undefined;
    if (BACK.has(status)) return 'back';
    return GONE.has(status) ? 'gone' : undefined;
  }
}
