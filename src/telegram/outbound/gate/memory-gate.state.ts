import { BoundedMap } from '../../../common/bounded-map.js';
import type { BotStatus } from '../outbound.types.js';
import type { AimdState } from './aimd.js';
import { AnswerTally } from './answer-tally.js';

/** Per-chat entries held at most in each map by default (`telegram.outbound.memoryChatEntries`). */
export const PER_CHAT = 100_000;

/** A per-chat map: a time in the past has lapsed (a TAT behind `now` is a full bucket). */
const perChat = (store: string, maxEntries: number): BoundedMap<string, number> =>
  new BoundedMap({
    store,
    maxEntries,
    whenFull: 'evict-oldest',
    expired: (at, now) => at <= now,
  });

/**
 * What the memory send gate holds (memory-send-gate.store.ts): bot statuses, bucket TATs, chat cooldowns,
 * unreachable chats, sends in flight, AIMD rates, departures and the answer tally. Per-chat maps are
 * bounded (`maxChats` each).
 */
export class MemoryGateState {
  readonly statuses = new Map<string, BotStatus>();
  readonly tats: BoundedMap<string, number>;
  readonly chatCool: BoundedMap<string, number>;
  readonly unreachable: BoundedMap<string, number>;
  readonly flights = new Map<string, Map<string, number>>();
  readonly aimd = new Map<string, AimdState>();
  /** Per bot, send id → departure time, of the last window (at most `max` each; an answer moves it to then). */
  readonly departures = new Map<string, Map<string, number>>();
  /** Sends that left: `bot|send id` → until when the record is kept. */
  readonly left: BoundedMap<string, number>;
  readonly tally = new AnswerTally();

  constructor(maxChats: number) {
    this.tats = perChat('telegram_send_tats', maxChats);
    this.chatCool = perChat('telegram_chat_cooldowns', maxChats);
    this.unreachable = perChat('telegram_unreachable_chats', maxChats);
    this.left = perChat('telegram_departed_sends', maxChats);
  }

  /** The bot's stored status (active, generation 0, when none is stored). */
  raw(bot: string): BotStatus {
    return this.statuses.get(bot) ?? { state: 'active', gen: 0, rotating: false };
  }
}
