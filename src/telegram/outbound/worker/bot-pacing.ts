import type { Clock } from '../../../common/clock.js';

/**
 * What this worker learnt from the gate's refusals: until when a bot's own
 * buckets (the bot's, a bot × method's) are full. A lane routed to a full bot
 * waits without asking Redis again, and the waiting lanes come back spread
 * over `spreadMs` instead of all at the instant the bucket has room for one —
 * under a backlog far over a bot's rate, that herd was most of the work.
 * Only a hint: the gate decides every send.
 */
export class BotPacing {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly spreadMs: number,
  ) {}

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

  /** When a lane waiting for `until` is tried again: spread over the next `spreadMs`. */
  spread(until: number): number {
    return until + Math.floor(this.clock.random() * this.spreadMs);
  }
}
