import { channel } from 'node:diagnostics_channel';
import type { Clock } from '../../../common/clock.js';

/**
 * Published (diagnostics_channel) when a worker learns that a bot cools down: `{ worker, bot, until, from }`,
 * `from` = 'answer' (its own 429) or 'gate' (another worker's, read from Redis). From that instant on, no
 * send of the bot leaves that worker before `until`. `worker` is a number per worker of the process.
 */
export const COOLED_CHANNEL = channel('rampart:telegram-outbound:cooled');

/**
 * The bots' cooldowns one worker knows (part of BotPacing): its own 429s at once, other workers' as read
 * from the gate, each with how many of this worker's 429s the gate has not stored yet (a lift does not
 * undo those: they are newer than the lift).
 */
export class BotCooldowns {
  /** A bot's cooldown known here: its end, and how many 429s of this worker the gate has not stored yet. */
  private readonly cool = new Map<string, { until: number; pending: number }>();

  constructor(
    private readonly clock: Clock,
    /** The worker's number (COOLED_CHANNEL). */
    private readonly worker: number,
  ) {}

  /** See BotPacing.cooled. */
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

  /** See BotPacing.stored. */
  stored(bot: string, until?: number): void {
    const c = this.cool.get(bot);
    if (!c) return;
    c.pending = Math.max(0, c.pending - 1);
    if (until !== undefined) c.until = Math.max(c.until, until);
  }

  /** See BotPacing.lift. */
  lift(bot: string): void {
    if (!this.cool.get(bot)?.pending) this.cool.delete(bot);
  }

  /** See BotPacing.sync. */
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

  /** Epoch ms the bot's cooldown known here ends, when it is still ahead. */
  cooling(bot: string): number | undefined {
    const u = this.cool.get(bot)?.until;
    return u !== undefined && u > this.clock.now() ? u : undefined;
  }

  /** The end of the bot's cooldown known here, past or not (0: none known). */
  end(bot: string): number {
    return this.cool.get(bot)?.until ?? 0;
  }
}
