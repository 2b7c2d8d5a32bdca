import type { Clock } from '../../../common/clock.js';
import type { BotStatus } from '../outbound.types.js';
import { type AimdSettings, aimdCut } from './aimd.js';
import type { AnswerCounts, SendAnswer } from './answer-tally.js';
import { chargeSend } from './memory-gate.charge.js';
import { departSend } from './memory-gate.depart.js';
import { MemoryGateState, PER_CHAT } from './memory-gate.state.js';
import {
  ChargeRequest,
  ChargeResult,
  Departure,
  SendGateStore,
  StatusPatch,
  effective,
} from './send-gate.store.js';

/**
 * The send gate in this process's memory (the embedded default): the same rules as the Redis store.
 * Per-chat state is bounded: lapsed entries go first, then the oldest. A dropped live one paces a chat
 * less than Telegram asks, and Telegram's own 429 (a cooldown here) and 403 put it back.
 * The state is MemoryGateState; the charge and the departure check are pieces of their own.
 */
export class MemorySendGateStore implements SendGateStore {
  private readonly s: MemoryGateState;

  constructor(
    private readonly clock: Clock,
    maxChats = PER_CHAT,
  ) {
    this.s = new MemoryGateState(maxChats);
  }

  charge(r: ChargeRequest): Promise<ChargeResult> {
    return Promise.resolve(chargeSend(this.s, r, this.clock.now()));
  }

  depart(
    bot: string,
    sendId: string,
    windowMs: number,
    max: number,
    keepMs: number,
  ): Promise<Departure> {
    const o = { windowMs, max, keepMs };
    return Promise.resolve(departSend(this.s, bot, sendId, o, this.clock.now()));
  }

  departed(bots: string[], sendId: string): Promise<boolean> {
    const now = this.clock.now();
    return Promise.resolve(bots.some((b) => (this.s.left.get(`${b}|${sendId}`) ?? 0) > now));
  }

  release(bot: string, sendId: string, answer?: SendAnswer): Promise<void> {
    this.s.flights.get(bot)?.delete(sendId);
    if (answer) {
      const now = this.clock.now();
      this.s.tally.add(bot, answer, now);
      // Answered: it reached Telegram no later than now (see lua/telegram_send_release.lua).
      const d = this.s.departures.get(bot);
      if (d?.has(sendId)) d.set(sendId, Math.max(d.get(sendId)!, now));
    }
    return Promise.resolve();
  }

  answers(bot: string): Promise<AnswerCounts> {
    return Promise.resolve(this.s.tally.counts(bot, this.clock.now()));
  }

  cooldown(
    bot: string,
    chatId: string | undefined,
    ms: number,
    aimd?: AimdSettings & { cap: number },
  ): Promise<number> {
    const now = this.clock.now();
    if (chatId !== undefined) {
      const k = `${bot}|${chatId}`;
      const until = Math.max(this.s.chatCool.get(k) ?? 0, now + ms);
      this.s.chatCool.set(k, until, now);
      return Promise.resolve(until);
    }
    const st = this.s.raw(bot);
    const cooling = st.state === 'cooldown' && (st.until ?? 0) > now;
    const until = Math.max(st.state === 'cooldown' ? (st.until ?? 0) : 0, now + ms);
    if (st.state === 'active' || st.state === 'cooldown') {
      this.s.statuses.set(bot, { ...st, state: 'cooldown', until, reason: 'retry_after' });
      if (aimd)
        this.s.aimd.set(bot, aimdCut(aimd.cap, this.s.aimd.get(bot), now, until, aimd, cooling));
    }
    return Promise.resolve(until);
  }

  setStatus(bot: string, p: StatusPatch): Promise<BotStatus> {
    const st = { ...this.s.raw(bot) };
    if (p.state !== undefined) {
      st.state = p.state;
      st.until = p.state === 'cooldown' ? p.until : undefined;
      st.reason = p.reason;
    }
    if (p.rotating !== undefined) st.rotating = p.rotating;
    if (p.bumpGen) st.gen += 1;
    this.s.statuses.set(bot, st);
    return Promise.resolve(effective(st, this.clock.now()));
  }

  status(bot: string): Promise<BotStatus> {
    return Promise.resolve(effective(this.s.raw(bot), this.clock.now()));
  }

  markUnreachable(bot: string, chatId: string, ttlMs: number): Promise<void> {
    const now = this.clock.now();
    this.s.unreachable.set(`${bot}|${chatId}`, now + ttlMs, now);
    return Promise.resolve();
  }

  clearUnreachable(bot: string, chatId: string): Promise<void> {
    this.s.unreachable.delete(`${bot}|${chatId}`);
    return Promise.resolve();
  }

  inflight(bot: string): Promise<number> {
    const now = this.clock.now();
    let n = 0;
    for (const until of this.s.flights.get(bot)?.values() ?? []) if (until > now) n++;
    return Promise.resolve(n);
  }
}
