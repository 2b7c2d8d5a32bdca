import { BoundedMap } from '../../../common/bounded-map.js';
import type { Clock } from '../../../common/clock.js';
import type { BotStatus } from '../outbound.types.js';
import { gcra, nextFitMs } from './gcra.js';
import {
  ChargeRequest,
  ChargeResult,
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

  constructor(
    private readonly clock: Clock,
    maxChats = PER_CHAT,
  ) {
    this.tats = perChat('telegram_send_tats', maxChats);
    this.chatCool = perChat('telegram_chat_cooldowns', maxChats);
    this.unreachable = perChat('telegram_unreachable_chats', maxChats);
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
    const steps = specs.map((b, i) =>
      b ? gcra(b, this.tats.get(keys[i]!), costs[i]!, now) : undefined,
    );
    const waits = steps.map((x) => x?.waitMs ?? 0);
    const wait = Math.max(0, ...waits);
    if (wait > 0) {
      const bucket = (['bot', 'method', 'chat'] as const)[waits.indexOf(wait)];
      return Promise.resolve({ kind: 'wait', ms: wait, why: 'bucket', bucket });
    }
    steps.forEach((x, i) => x?.tat !== undefined && this.tats.set(keys[i]!, x.tat, now));
    let f = this.flights.get(r.bot);
    if (!f) this.flights.set(r.bot, (f = new Map()));
    f.set(r.sendId, now + r.inflightMs);
    return Promise.resolve({
      kind: 'ok',
      gen: s.gen,
      chatNextMs: nextFitMs(r.buckets.chat, steps[2]!.tat!, now),
    });
  }

  release(bot: string, sendId: string): Promise<void> {
    this.flights.get(bot)?.delete(sendId);
    return Promise.resolve();
  }

  cooldown(bot: string, chatId: string | undefined, ms: number): Promise<number> {
    const now = this.clock.now();
    if (chatId !== undefined) {
      const k = `${bot}|${chatId}`;
      const until = Math.max(this.chatCool.get(k) ?? 0, now + ms);
      this.chatCool.set(k, until, now);
      return Promise.resolve(until);
    }
    const s = this.raw(bot);
    const until = Math.max(s.state === 'cooldown' ? (s.until ?? 0) : 0, now + ms);
    if (s.state === 'active' || s.state === 'cooldown')
      this.statuses.set(bot, { ...s, state: 'cooldown', until, reason: 'retry_after' });
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
