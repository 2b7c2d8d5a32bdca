import { channel } from 'node:diagnostics_channel';
import type { Clock } from '../../../common/clock.js';

/**
 * Published (diagnostics_channel) when a worker learns that a bot cools down: `{ worker, bot, until, from }`,
 * `from` = 'answer' (its own 429) or 'gate' (another worker's, read from Redis). From that instant on, no
 * send of the bot leaves that worker before `until`. `worker` is a number per worker of the process.
 */
export const COOLED_CHANNEL = channel('rampart:telegram-outbound:cooled');
/**
 * Published when a send is let go (`{ worker, bot }`, after its last check, before its HTTP call): with the
 * channel above, a test tells a send that was in flight when its worker learnt of a 429 from one that left
 * after (a bug), whatever the machine's load.
 */
export const DEPART_CHANNEL = channel('rampart:telegram-outbound:depart');
let workers = 0;

/**
 * What this worker learnt from the gate's refusals: until when a bot's own
 * buckets (the bot's, a bot × method's) are full. A lane routed to a full bot
 * waits in this worker's line for the bot (one interval apart, not all at the
 * instant the bucket has room for one — under a backlog far over a bot's rate,
 * that herd was most of the work); a lane that does not fit goes back to the
 * queue with its place in line (the worker claims no more than fits).
 * Only a hint: the gate decides every send.
 */
export class BotPacing {
  private readonly until = new Map<string, number>();
  /** A bot's cooldown known here: its end, and how many 429s of this worker the gate has not stored yet. */
  private readonly cool = new Map<string, { until: number; pending: number }>();
  private readonly lines = new Map<string, number>();
  private readonly intervals = new Map<string, number>();
  private readonly worker = ++workers;

  constructor(private readonly clock: Clock) {}

  /** Epoch ms the key's bucket has room again, when that is still ahead. */
  busy(key: string): number | undefined {
    const u = this.until.get(key);
    return u !== undefined && u > this.clock.now() ? u : undefined;
  }

  refused(key: string, ms: number): number {
    const u = Math.max(this.until.get(key) ?? 0, this.clock.now() + ms);
    this.until.set(key, u);
    return u;
  }

  /**
   * This worker got a 429 for the bot (`answer`: pending until `stored`) or read its cooldown from the gate:
   * it is cooling until `until` (epoch ms). A 429 is known here the instant the answer comes back, before
   * the gate (Redis) has it, so this worker's reserved sends stop at once.
   */
  cooled(bot: string, until: number, from: 'answer' | 'gate'): void {
    const c = this.cool.get(bot) ?? { until: 0, pending: 0 };
    const known = c.until;
    this.cool.set(bot, {
      until: Math.max(known, until),
      pending: c.pending + (from === 'answer' ? 1 : 0),
    });
    if (known <= this.clock.now() && COOLED_CHANNEL.hasSubscribers)
      COOLED_CHANNEL.publish({ worker: this.worker, bot, until, from });
  }

  /** The gate stored (or failed to store) a 429 of this worker: the cooldown ends at `until` at least. */
  stored(bot: string, until?: number): void {
    const c = this.cool.get(bot);
    if (!c) return;
    c.pending = Math.max(0, c.pending - 1);
    if (until !== undefined) c.until = Math.max(c.until, until);
  }

  /**
   * The bot's cooldown was lifted early (an admin, on any instance): this worker forgets it (the gate decides
   * the next send, atomically, so a cooldown set again after the lift still holds). A 429 of this worker the
   * gate has not stored yet is kept: it is newer than the lift.
   */
  lift(bot: string): void {
    if (!this.cool.get(bot)?.pending) this.cool.delete(bot);
  }

  /**
   * The gate's view of the bot (`until`: its cooldown's end, undefined: none), read after this worker learnt
   * its cooldown: the cooldown known here becomes the gate's — a lift whose message was lost is caught here.
   */
  sync(bot: string, until: number | undefined): void {
    const c = this.cool.get(bot);
    if (!c || c.pending > 0) return;
    if (until === undefined || until <= this.clock.now()) this.cool.delete(bot);
    else c.until = until;
  }

  /** Bots whose cooldown known here is in force and stored in the gate (`sync` may end it). */
  syncable(): string[] {
    const now = this.clock.now();
    return [...this.cool].filter(([, c]) => c.until > now && c.pending === 0).map(([b]) => b);
  }

  /** A send of the bot leaves now (published for tests, see DEPART_CHANNEL). */
  departed(bot: string): void {
    if (DEPART_CHANNEL.hasSubscribers) DEPART_CHANNEL.publish({ worker: this.worker, bot });
  }

  /** Epoch ms the bot's cooldown known here ends, when it is still ahead. */
  cooling(bot: string): number | undefined {
    const u = this.cool.get(bot)?.until;
    return u !== undefined && u > this.clock.now() ? u : undefined;
  }

  /**
   * When a lane held in this worker for the key's next slot (free at `until`) tries again: the lanes
   * in line wake one `intervalMs` apart, not all at once (each wake is a call to the gate);
   * undefined when that is after `limit` (the lane goes back to the queue).
   */
  line(key: string, until: number, intervalMs: number, limit: number): number | undefined {
    const at = Math.max(until, (this.lines.get(key) ?? 0) + intervalMs);
    if (at > limit) return undefined;
    this.lines.set(key, at);
    this.intervals.set(key, intervalMs);
    return at;
  }

  /**
   * Room for newly claimed lanes over `bots`: `at`, from when a lane routed to one of them could be sent or
   * held in its line instead of put straight back (the earliest over the bots of the end of its cooldown,
   * of its full bucket, of its line less `holdMs`), and `lanes`, about how many fit now (a bot this worker
   * knows nothing of: any number). A worker that claims more only puts them back — a claim and a settle
   * each, for nothing.
   */
  room(bots: string[], holdMs: number): { at: number; lanes: number } {
    const now = this.clock.now();
    let at = Infinity;
    let lanes = 0;
    for (const b of bots) {
      const interval = this.intervals.get(b);
      const next = Math.max(this.until.get(b) ?? 0, (this.lines.get(b) ?? 0) + (interval ?? 0));
      const from = Math.max(this.cool.get(b)?.until ?? 0, next - holdMs);
      at = Math.min(at, from);
      if (from > now) continue;
      lanes += interval
        ? Math.floor((now + holdMs - Math.max(now, next)) / interval) + 1
        : Infinity;
    }
    return { at: at === Infinity ? 0 : at, lanes };
  }
}
