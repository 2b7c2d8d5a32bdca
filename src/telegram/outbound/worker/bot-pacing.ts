import { channel } from 'node:diagnostics_channel';
import type { Clock } from '../../../common/clock.js';
import { BotCooldowns } from './bot-cooldowns.js';

/**
 * Published when a send is let go (`{ worker, bot }`, after its last check, before its HTTP call): with
 * COOLED_CHANNEL (bot-cooldowns.ts), a test tells a send that was in flight when its worker learnt of a
 * 429 from one that left after (a bug), whatever the machine's load.
 */
export const DEPART_CHANNEL = channel('rampart:telegram-outbound:depart');
let workers = 0;

/**
 * What this worker learnt from the gate: the last slot of a bot reserved (by
 * this worker, or by any, as a refusal tells), and until when a bot's own
 * buckets (the bot's, a bot × method's) have no slot within the horizon a lane
 * may reserve ahead. A lane reserves its slot at once, its place in the bot's
 * line that every worker shares (the gate's bucket); a lane routed to a full bot
 * spills to another or goes back to the queue with its place in line, and the
 * worker claims about as many lanes as there are slots to reserve. (Lanes used
 * to wait for a full bot in a line of their worker: with two workers, one's line
 * kept reaching the freed slot first, and the other's lanes, the oldest of the
 * queue, went back and forth for seconds.) Only a hint: the gate decides every send.
 * The cooldowns it knows are BotCooldowns.
 */
export class BotPacing {
  private readonly until = new Map<string, number>();
  private readonly lines = new Map<string, number>();
  /** Bot → its last slot known reserved (epoch ms). */
  private readonly slots = new Map<string, number>();
  private readonly intervals = new Map<string, number>();
  private readonly worker = ++workers;
  private readonly cooldowns: BotCooldowns;

  constructor(private readonly clock: Clock) {
    this.cooldowns = new BotCooldowns(clock, this.worker);
  }

  /** Epoch ms the key's bucket has room again, when that is still ahead. */
  busy(key: string): number | undefined {
    const u = this.until.get(key);
    return u !== undefined && u > this.clock.now() ? u : undefined;
  }

  /**
   * The gate has no slot of the key within `horizonMs` for `ms`; for a bot (`intervalMs` given), its last
   * slot reserved by any worker is then known: one interval before the first it would give.
   */
  refused(key: string, ms: number, intervalMs?: number, horizonMs = 0): number {
    const u = Math.max(this.until.get(key) ?? 0, this.clock.now() + ms);
    this.until.set(key, u);
    if (intervalMs) this.reserved(key, u + horizonMs - intervalMs, intervalMs, horizonMs);
    return u;
  }

  /** The bot's slot at `slotAt` is reserved: the next is an interval later, busy until within `horizonMs`. */
  reserved(bot: string, slotAt: number, intervalMs: number, horizonMs: number): void {
    const last = Math.max(this.slots.get(bot) ?? 0, slotAt);
    this.slots.set(bot, last);
    this.intervals.set(bot, intervalMs);
    const free = last + intervalMs - horizonMs;
    if (free > this.clock.now()) this.until.set(bot, Math.max(this.until.get(bot) ?? 0, free));
  }

  /**
   * This worker got a 429 for the bot (`answer`: pending until `stored`) or read its cooldown from the gate:
   * it is cooling until `until` (epoch ms). A 429 is known here the instant the answer comes back, before
   * the gate (Redis) has it, so this worker's reserved sends stop at once.
   */
  cooled(bot: string, until: number, from: 'answer' | 'gate'): void {
    this.cooldowns.cooled(bot, until, from);
  }

  /** The gate stored (or failed to store) a 429 of this worker: the cooldown ends at `until` at least. */
  stored(bot: string, until?: number): void {
    this.cooldowns.stored(bot, until);
  }

  /**
   * The bot's cooldown was lifted early (an admin, on any instance): this worker forgets it (the gate decides
   * the next send, atomically, so a cooldown set again after the lift still holds). A 429 of this worker the
   * gate has not stored yet is kept: it is newer than the lift.
   */
  lift(bot: string): void {
    this.cooldowns.lift(bot);
  }

  /**
   * The gate's view of the bot (`until`: its cooldown's end, undefined: none), read after this worker learnt
   * its cooldown: the cooldown known here becomes the gate's — a lift whose message was lost is caught here.
   */
  sync(bot: string, until: number | undefined): void {
    this.cooldowns.sync(bot, until);
  }

  /** Bots whose cooldown known here is in force and stored in the gate (`sync` may end it). */
  syncable(): string[] {
    return this.cooldowns.syncable();
  }

  /** A send of the bot leaves now (published for tests, see DEPART_CHANNEL). */
  departed(bot: string): void {
    if (DEPART_CHANNEL.hasSubscribers) DEPART_CHANNEL.publish({ worker: this.worker, bot });
  }

  /** Epoch ms the bot's cooldown known here ends, when it is still ahead. */
  cooling(bot: string): number | undefined {
    return this.cooldowns.cooling(bot);
  }

  /**
   * When a send held in this worker for the key (its bot's departure window, free at `until`) tries again:
   * the sends in line wake one `intervalMs` apart, not all at once (each wake is a call to the gate);
   * undefined when that is after `limit`.
   */
  line(key: string, until: number, intervalMs: number, limit: number): number | undefined {
    const at = Math.max(until, (this.lines.get(key) ?? 0) + intervalMs);
    if (at > limit) return undefined;
    this.lines.set(key, at);
    this.intervals.set(key, intervalMs);
    return at;
  }

  /**
   * Room for newly claimed lanes over `bots`: `at`, from when a lane routed to one of them could reserve a
   * slot within `horizonMs` instead of being put straight back (the earliest over the bots of the end of its
   * cooldown, of its full bucket, of its next slot less the horizon), and `lanes`, about how many slots there
   * are to reserve now (a bot this worker knows nothing of: any number). A worker that claims more only puts
   * them back — a claim and a settle each, for nothing.
   */
  room(bots: string[], horizonMs: number): { at: number; lanes: number } {
    const now = this.clock.now();
    let at = Infinity;
    let lanes = 0;
    for (const b of bots) {
      const interval = this.intervals.get(b);
      const next = (this.slots.get(b) ?? 0) + (interval ?? 0);
      const from = Math.max(this.cooldowns.end(b), this.until.get(b) ?? 0, next - horizonMs);
      at = Math.min(at, from);
      if (from > now) continue;
      lanes += interval
        ? Math.floor((now + horizonMs - Math.max(now, next)) / interval) + 1
        : Infinity;
    }
    return { at: at === Infinity ? 0 : at, lanes };
  }
}
