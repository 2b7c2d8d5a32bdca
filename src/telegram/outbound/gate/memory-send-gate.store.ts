import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';
import type { BotStatus } from '../outbound.types.js';
import { type AimdSettings, type AimdState, aimdCut, aimdRate } from './aimd.js';
import { type AnswerCounts, AnswerTally, type SendAnswer } from './answer-tally.js';
import { charged, earliest, nextFitMs } from './gcra.js';
import {
  ChargeRequest,
  ChargeResult,
  Departure,
  SendGateStore,
  StatusPatch,
  effective,
} from './send-gate.store.js';

/** Per-chat entries held at most in each map by default (`telegram.outbound.memoryChatEntries`). */
const PER_CHAT = 100_000;

/** A per-chat map: a time in the past has lapsed (a TAT behind `now` is a full bucket). */
const perChat = (store: string, maxEntries: number): BoundedMap<string, number> =>
  new BoundedMap({
    store,
    maxEntries,
    whenFull: 'evict-oldest',
    expired: (at, now) => at <= now,
  });

/**
 * The send gate in this process's memory (the embedded default): the same rules as the Redis store.
 * Per-chat state is bounded: lapsed entries go first, then the oldest. A dropped live one paces a chat
 * less than Telegram asks, and Telegram's own 429 (a cooldown here) and 403 put it back.
 */
export class MemorySendGateStore implements SendGateStore {
  private readonly statuses = new Map<string, BotStatus>();
  private readonly tats: BoundedMap<string, number>;
  private readonly chatCool: BoundedMap<string, number>;
  private readonly unreachable: BoundedMap<string, number>;
  private readonly flights = new Map<string, Map<string, number>>();
  private readonly aimd = new Map<string, AimdState>();
  /** Per bot, send id → departure time, of the last window (at most `max` each; an answer moves it to then). */
  private readonly departures = new Map<string, Map<string, number>>();
  /** Sends that left: `bot|send id` → until when the record is kept. */
  private readonly left: BoundedMap<string, number>;
  private readonly tally = new AnswerTally();

  constructor(
    private readonly clock: Clock,
    maxChats = PER_CHAT,
  ) {
    this.tats = perChat('telegram_send_tats', maxChats);
    this.chatCool = perChat('telegram_chat_cooldowns', maxChats);
    this.unreachable = perChat('telegram_unreachable_chats', maxChats);
    this.left = perChat('telegram_departed_sends', maxChats);
  }

  charge(r: ChargeRequest): Promise<ChargeResult> {
    const now = this.clock.now();
    const s = effective(this.raw(r.bot), now);
    if (s.state === 'disabled' || s.state === 'revoked')
      return Promise.resolve({ kind: 'refused', why: s.state });
    if ((this.unreachable.get(`${r.bot}|${r.chatId}`) ?? 0) > now)
      return Promise.resolve({ kind: 'refused', why: 'unreachable' });
    if (s.rotating) return Promise.resolve({ kind: 'wait', ms: 50, why: 'rotating' });
    if (s.state === 'cooldown')
      return Promise.resolve({ kind: 'wait', ms: Math.ceil(s.until! - now), why: 'cooldown' });
    const cool = this.chatCool.get(`${r.bot}|${r.chatId}`) ?? 0;
    if (cool > now)
      return Promise.resolve({ kind: 'wait', ms: Math.ceil(cool - now), why: 'chat_cooldown' });
    const keys = [`${r.bot}|b`, `${r.bot}|m|${r.method}`, `${r.bot}|c|${r.chatId}`];
    const specs = [r.buckets.bot, r.buckets.method, r.buckets.chat];
    const costs = [r.weight, r.weight, 1];
    const a = this.aimd.get(r.bot);
    const rates = specs.map((b, i) =>
      b && i === 0 && r.aimd ? aimdRate(b.perSecond, a, now, r.aimd) : b?.perSecond,
    );
    const slots = specs.map((b, i) =>
      b ? earliest(b, this.tats.get(keys[i]!), costs[i]!, now, rates[i]) : now,
    );
    const slot = Math.max(now, ...slots);
    if (slot - now > (r.maxWaitMs ?? 0) + 1e-9) {
      const i = slots.indexOf(slot);
      const ms = Math.max(1, Math.ceil(slot - now - (r.maxWaitMs ?? 0)));
      const bucket = (['bot', 'method', 'chat'] as const)[i];
      return Promise.resolve({ kind: 'wait', ms, why: 'bucket', bucket });
    }
    specs.forEach((b, i) => {
      if (b)
        this.tats.set(
          keys[i]!,
          charged(b, this.tats.get(keys[i]!), costs[i]!, slot, rates[i]),
          now,
        );
    });
    let f = this.flights.get(r.bot);
    if (!f) this.flights.set(r.bot, (f = new Map()));
    f.set(r.sendId, now + r.inflightMs);
    return Promise.resolve({
      kind: 'ok',
      gen: s.gen,
      chatNextMs: nextFitMs(r.buckets.chat, this.tats.get(keys[2]!)!, now),
      waitMs: Math.ceil(slot - now),
    });
  }

  depart(
    bot: string,
    sendId: string,
    windowMs: number,
    max: number,
    keepMs: number,
  ): Promise<Departure> {
    const now = this.clock.now();
    const s = effective(this.raw(bot), now);
    if (s.state === 'cooldown') return Promise.resolve({ kind: 'cool', until: s.until! });
    const d = this.departures.get(bot) ?? new Map<string, number>();
    for (const [id, t] of d) if (t <= now - windowMs) d.delete(id);
    this.departures.set(bot, d);
    if (d.size >= max)
      return Promise.resolve({ kind: 'full', ms: Math.min(...d.values()) + windowMs - now + 1 });
    d.set(sendId, now);
    this.left.set(`${bot}|${sendId}`, now + keepMs, now);
    return Promise.resolve({ kind: 'go' });
  }

  departed(bots: string[], sendId: string): Promise<boolean> {
    const now = this.clock.now();
    return Promise.resolve(bots.some((b) => (this.left.get(`${b}|${sendId}`) ?? 0) > now));
  }

  release(bot: string, sendId: string, answer?: SendAnswer): Promise<void> {
    this.flights.get(bot)?.delete(sendId);
    if (answer) {
      const now = this.clock.now();
      this.tally.add(bot, answer, now);
      // Answered: it reached Telegram no later than now (see lua/telegram_send_release.lua).
      const d = this.departures.get(bot);
      if (d?.has(sendId)) d.set(sendId, Math.max(d.get(sendId)!, now));
    }
    return Promise.resolve();
  }

  answers(bot: string): Promise<AnswerCounts> {
    return Promise.resolve(this.tally.counts(bot, this.clock.now()));
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
      const until = Math.max(this.chatCool.get(k) ?? 0, now + ms);
      this.chatCool.set(k, until, now);
      return Promise.resolve(until);
    }
    const s = this.raw(bot);
    const cooling = s.state === 'cooldown' && (s.until ?? 0) > now;
    const until = Math.max(s.state === 'cooldown' ? (s.until ?? 0) : 0, now + ms);
    if (s.state === 'active' || s.state === 'cooldown') {
      this.statuses.set(bot, { ...s, state: 'cooldown', until, reason: 'retry_after' });
      if (aimd)
        this.aimd.set(bot, aimdCut(aimd.cap, this.aimd.get(bot), now, until, aimd, cooling));
    }
    return Promise.resolve(until);
  }

  setStatus(bot: string, p: StatusPatch): Promise<BotStatus> {
    const s = { ...this.raw(bot) };
    if (p.state !== undefined) {
      s.state = p.state;
      s.until = p.state === 'cooldown' ? p.until : undefined;
      s.reason = p.reason;
    }
    if (p.rotating !== undefined) s.rotating = p.rotating;
    if (p.bumpGen) s.gen += 1;
    this.statuses.set(bot, s);
    return Promise.resolve(effective(s, this.clock.now()));
  }

  status(bot: string): Promise<BotStatus> {
    return Promise.resolve(effective(this.raw(bot), this.clock.now()));
  }

  markUnreachable(bot: string, chatId: string, ttlMs: number): Promise<void> {
    const now = this.clock.now();
    this.unreachable.set(`${bot}|${chatId}`, now + ttlMs, now);
    return Promise.resolve();
  }

  clearUnreachable(bot: string, chatId: string): Promise<void> {
    this.unreachable.delete(`${bot}|${chatId}`);
    return Promise.resolve();
  }

  inflight(bot: string): Promise<number> {
    const now = this.clock.now();
    let n = 0;
    for (const until of this.flights.get(bot)?.values() ?? []) if (until > now) n++;
    return Promise.resolve(n);
  }

  private raw(bot: string): BotStatus {
    return this.statuses.get(bot) ?? { state: 'active', gen: 0, rotating: false };
  }
}
