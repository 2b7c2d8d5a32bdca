import type { BotState, BotStatus } from '../outbound.types.js';
import type { SendBucket } from '../outbound.settings.js';
import type { AimdSettings } from './aimd.js';
import type { AnswerCounts, SendAnswer } from './answer-tally.js';

/** One send to charge: the bot's, the bot × method's and the bot × chat's buckets, at once. */
export interface ChargeRequest {
  bot: string;
  chatId: string;
  method: string;
  /** Tokens taken from the bot and method buckets (media weigh more). The chat bucket takes 1. */
  weight: number;
  /** Id of this send in the bot's in-flight set (a rotation drains it). */
  sendId: string;
  /** Milliseconds the in-flight mark lives at most (a crashed worker's mark expires). */
  inflightMs: number;
  buckets: { bot: SendBucket; method?: SendBucket; chat: SendBucket };
  /**
   * A slot up to this many ms ahead may be reserved (the caller waits `waitMs`, then sends): the
   * sends of all workers are then spaced by the buckets' intervals instead of bunched. 0: now or never.
   */
  maxWaitMs?: number;
  /** The bot bucket's rate adapts after 429s (see aimd.ts); absent: fixed. */
  aimd?: AimdSettings;
}

export type ChargeResult =
  /**
   * Charged: send in `waitMs` (the reserved slot; 0: now). `gen` is the bot's token generation;
   * `chatNextMs` when the chat takes the next.
   */
  | { kind: 'ok'; gen: number; chatNextMs: number; waitMs: number }
  /** Not now (not within `maxWaitMs`), nothing charged: try again in `ms` (`bucket`: the one with the longest wait). */
  | {
      kind: 'wait';
      ms: number;
      why: 'cooldown' | 'chat_cooldown' | 'bucket' | 'rotating';
      bucket?: 'bot' | 'method' | 'chat';
    }
  /** This bot cannot send this job. */
  | { kind: 'refused'; why: 'disabled' | 'revoked' | 'unreachable' };

/** The last check before a reserved send leaves (see `SendGateStore.depart`). */
export type Departure =
  | { kind: 'go' }
  /** The bot cools down (a 429 another worker got) until this epoch ms. */
  | { kind: 'cool'; until: number }
  /** The bot's departure window is full: try again in `ms`. */
  | { kind: 'full'; ms: number };

/** A change of a bot's registry entry (admin API, Telegram's answers, a rotation). */
export interface StatusPatch {
  state?: BotState;
  /** Epoch ms (state cooldown). */
  until?: number;
  reason?: string;
  rotating?: boolean;
  /** Bumps the token generation (a rotation's swap). */
  bumpGen?: boolean;
}

/**
 * The send gate: the bot registry (state, cooldown, token generation,
 * rotation), per-chat cooldowns and reachability, the in-flight sends, and
 * the buckets, all of one bot under one hash tag, so that `charge` checks the
 * bot's state and cooldowns and charges the three buckets in ONE atomic call
 * (lua/telegram_send_charge.lua). Times are the store's clock (Redis TIME).
 */
export interface SendGateStore {
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /**
   * A reserved send is about to leave: go unless the bot cools down, or `max` of its sends already left
   * in the last `windowMs` (then nothing is recorded); else its departure is recorded, and `sendId` (the
   * lease token) is kept as departed for `keepMs` milliseconds (see `departed`).
   */
  depart(
    bot: string,
    sendId: string,
    windowMs: number,
    max: number,
    keepMs: number,
  ): Promise<Departure>;
  /**
   * Whether a send with this id (a lease token) left through any of `bots` within its `keepMs`: a worker that
   * reclaims the lease of a dead one learns whether its send may have reached Telegram.
   */
  departed(bots: string[], sendId: string): Promise<boolean>;
  /** The send ended (either way): its in-flight mark goes; `answer`: Telegram answered it (counted). */
  release(bot: string, sendId: string, answer?: SendAnswer): Promise<void>;
  /** Telegram's answers to the bot's sends over the last ANSWER_WINDOW_MS (every worker's). */
  answers(bot: string): Promise<AnswerCounts>;
  /**
   * Cools down the bot (no chat) or the bot × chat for `ms` milliseconds from now; a longer cooldown
   * in force is kept (the end is the max of both). A bot's cooldown also cuts its adaptive rate
   * (`aimd`, `cap` = the bot bucket's rate) once per cooldown. Returns the end, epoch ms.
   */
  cooldown(
    bot: string,
    chatId: string | undefined,
    ms: number,
    aimd?: AimdSettings & { cap: number },
  ): Promise<number>;
  setStatus(bot: string, patch: StatusPatch): Promise<BotStatus>;
  status(bot: string): Promise<BotStatus>;
  /** Telegram answered 403 for this chat: this bot cannot reach it (for `ttlMs`). */
  markUnreachable(bot: string, chatId: string, ttlMs: number): Promise<void>;
  /**
   * The bot is back in the chat (a `my_chat_member` update showing it a member, or the user's new
   * `/start`, seen at THIS bot's ingress): its 403 mark for the chat goes. Another bot's mark stays.
   */
  clearUnreachable(bot: string, chatId: string): Promise<void>;
  /** Sends of this bot in flight on any worker. */
  inflight(bot: string): Promise<number>;
}

/** A 403 marks bot × chat unreachable for this long, unless the bot is seen back in the chat (chat-reach.ts). */
export const UNREACHABLE_MS = 30 * 24 * 3600_000;

/**
 * How long past its lease a departed send's record is kept (`depart`'s `keepMs` is the lease plus this): a
 * lease reclaimed within this long after it ended tells "never left" (retried) from "may have left" (the
 * `ambiguous` policy); one reclaimed later (every worker down longer) is taken as ambiguous.
 */
export const DEPARTURE_KEEP_MS = 10 * 60_000;

/** Injection token of the SendGateStore. */
export const SEND_GATE_STORE = Symbol('SEND_GATE_STORE');

/** A bot's status as stored → as in force at `now` (an ended cooldown is active). */
export function effective(s: BotStatus, now: number): BotStatus {
  return s.state === 'cooldown' && (s.until ?? 0) <= now
    ? { ...s, state: 'active', until: undefined }
    : s;
}
