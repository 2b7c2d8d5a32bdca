import type { Clock } from '../../../common/clock.js';
import type { BotStatus } from '../outbound.types.js';
import { IdCipher } from '../id-cipher.js';
import type { AimdSettings } from './aimd.js';
import type { AnswerCounts, SendAnswer } from './answer-tally.js';
import { answerCounts, releaseSend } from './redis-gate.answers.js';
import { chargeSend } from './redis-gate.charge.js';
import { RedisGateParts, type Runner } from './redis-gate.parts.js';
import { readStatus, writeStatus } from './redis-gate.status.js';
import {
  ChargeRequest,
  ChargeResult,
  Departure,
  SendGateStore,
  StatusPatch,
} from './send-gate.store.js';

/**
 * The send gate in Redis: every key of one bot under the bot's hash tag
 * `{<env>:<service>:bot:<id>}`, so the charge (lua/telegram_send_charge.lua)
 * and a cooldown (lua/telegram_cooldown.lua) are one call each, in one slot.
 * The key schema is RedisGateParts; the charge, the answers and the status are pieces of their own.
 */
export class RedisSendGateStore implements SendGateStore {
  private readonly p: RedisGateParts;

  constructor(
    redis: Runner,
    base: string,
    clock: Clock,
    /** Chat ids in keys as keyed pseudonyms (docs/security.md#ids-in-redis). */
    ids: IdCipher = IdCipher.from(undefined, undefined),
  ) {
    this.p = new RedisGateParts(redis, base, clock, ids);
  }

  private key(bot: string, part: string): string {
    return this.p.key(bot, part);
  }

  charge(r: ChargeRequest): Promise<ChargeResult> {
    return chargeSend(this.p, r);
  }

  async depart(
    bot: string,
    sendId: string,
    windowMs: number,
    max: number,
    keepMs: number,
  ): Promise<Departure> {
    const out = await this.p.redis.script<[string, number?]>(
      'telegram_send_depart',
      [this.key(bot, 's'), this.key(bot, 'd'), this.key(bot, 'k')],
      [windowMs, max, sendId, keepMs],
    );
    if (out[0] === 'cool') return { kind: 'cool', until: Number(out[1]) };
    if (out[0] === 'full') return { kind: 'full', ms: Number(out[1]) };
    return { kind: 'go' };
  }

  /** A record past its keep, not trimmed yet (at the bot's next departure), answers true: the safe side. */
  async departed(bots: string[], sendId: string): Promise<boolean> {
    for (const b of bots) {
      const at = await this.p.redis.run('telegram.departed', (c) =>
        c.zscore(this.key(b, 'k'), sendId),
      );
      if (at !== null) return true;
    }
    return false;
  }

  release(bot: string, sendId: string, answer?: SendAnswer): Promise<void> {
    return releaseSend(this.p, bot, sendId, answer);
  }

  answers(bot: string): Promise<AnswerCounts> {
    return answerCounts(this.p, bot);
  }

  async cooldown(
    bot: string,
    chatId: string | undefined,
    ms: number,
    aimd?: AimdSettings & { cap: number },
  ): Promise<number> {
    const key =
      chatId === undefined
        ? this.key(bot, 's')
        : this.key(bot, `cc:${this.p.ids.pseudonym(chatId)}`);
    const mode = chatId === undefined ? 'bot' : 'chat';
    const a = aimd ? [aimd.cap, aimd.backoff, aimd.recoverPerSecond] : [0, 0, 0];
    return Number(
      await this.p.redis.script<number>('telegram_cooldown', [key], [mode, Math.ceil(ms), ...a]),
    );
  }

  setStatus(bot: string, p: StatusPatch): Promise<BotStatus> {
    return writeStatus(this.p, bot, p);
  }

  status(bot: string): Promise<BotStatus> {
    return readStatus(this.p, bot);
  }

  async markUnreachable(bot: string, chatId: string, ttlMs: number): Promise<void> {
    await this.p.redis.run('telegram.unreachable', (c) =>
      c.set(this.key(bot, `u:${this.p.ids.pseudonym(chatId)}`), '1', 'PX', ttlMs),
    );
  }

  async clearUnreachable(bot: string, chatId: string): Promise<void> {
    await this.p.redis.run('telegram.unreachable', (c) =>
      c.del(this.key(bot, `u:${this.p.ids.pseudonym(chatId)}`)),
    );
  }

  async inflight(bot: string): Promise<number> {
    const now = this.p.clock.now();
    return this.p.redis.run('telegram.inflight', (c) => c.zcount(this.key(bot, 'f'), now, '+inf'));
  }
}
