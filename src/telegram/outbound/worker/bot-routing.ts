import { createHash } from 'node:crypto';
import type { Clock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import type { BotStatus, Job } from '../outbound.types.js';
import type { SendGateStore } from '../gate/send-gate.store.js';
import type { BotHealth } from './bot-health.js';

function weight(botId: string, chatId: string): number {
  return createHash('sha1').update(`${botId}|${chatId}`).digest().readUInt32BE(0);
}

/**
 * Which bot sends a job: the bots of the job's scope (or its pinned bot),
 * ranked by rendezvous hashing of (bot, chat) — so a chat sticks to one bot
 * and moves only when that bot leaves the eligible set: disabled, revoked, or
 * unable to reach the chat (403). A cooldown does not make a bot ineligible:
 * the chat waits for its bot. States are cached for `refreshMs` per worker;
 * the gate refuses a stale choice atomically anyway.
 */
export class BotRouting {
  /** Bot → its state (a read in progress is shared: the lanes routed meanwhile make no read of their own). */
  private readonly cache = new Map<string, { s: Promise<BotStatus>; at: number }>();

  constructor(
    private readonly bots: BotConfig[],
    private readonly gate: SendGateStore,
    private readonly clock: Clock,
    private readonly refreshMs: number,
    /** Failure streaks (bot-health.ts) and the probe that brings a bot back: getMe. */
    private readonly health?: { streaks: BotHealth; probe: (b: BotConfig) => Promise<boolean> },
  ) {}

  /** Every bot id a job can be routed to. */
  ids(): string[] {
    return this.bots.map((b) => b.id);
  }

  /** The job's candidate bots, best first. */
  ranked(job: Pick<Job, 'scope' | 'chatId' | 'pinnedBot'>): BotConfig[] {
    const pool = job.pinnedBot
      ? this.bots.filter((b) => b.id === job.pinnedBot)
      : // A bot that lists its chats (telegram.bots[].outbound.chats) is eligible for those only.
        this.bots.filter((b) => b.scope === job.scope && (!b.chats || b.chats.has(job.chatId)));
    return pool
      .map((b) => ({ b, w: weight(b.id, job.chatId) }))
      .sort((x, y) => y.w - x.w)
      .map((x) => x.b);
  }

  async status(botId: string): Promise<BotStatus> {
    const c = this.cache.get(botId);
    const now = this.clock.now();
    if (c && now - c.at < this.refreshMs) return c.s;
    const s = this.gate.status(botId);
    const entry = { s, at: now };
    this.cache.set(botId, entry);
    // A failed read is not kept (the next lane reads again).
    s.catch(() => this.cache.get(botId) === entry && this.cache.delete(botId));
    return s;
  }

  /** Forget a bot's cached state (the gate said otherwise). */
  invalidate(botId: string): void {
    this.cache.delete(botId);
  }

  /**
   * The best candidate not excluded and neither disabled nor revoked; else why
   * none: `disabled` when one could come back, else `revoked`.
   */
  async route(
    job: Pick<Job, 'scope' | 'chatId' | 'pinnedBot'>,
    excluded: ReadonlySet<string>,
  ): Promise<BotConfig | 'disabled' | 'revoked' | 'forbidden'> {
    let disabled = false;
    let revoked = false;
    for (const b of this.ranked(job)) {
      if (excluded.has(b.id)) continue;
      // Out of rotation after a 5xx/timeout streak: its chats go elsewhere or wait for the probe.
      if (this.health && !this.health.streaks.usable(b.id, () => this.health!.probe(b))) {
        disabled = true;
        continue;
      }
      const s = await this.status(b.id);
      if (s.state === 'disabled') disabled = true;
      else if (s.state === 'revoked') revoked = true;
      else return b;
    }
    if (disabled) return 'disabled';
    return revoked ? 'revoked' : 'forbidden';
  }
}
