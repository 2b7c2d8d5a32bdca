import type { AttemptParts } from './attempt-parts.js';

/**
 * The cooldowns this worker knows, checked against the gate's: a cooldown lifted early whose message this
 * worker missed ends here.
 */
export class CooldownSync {
  private recheckedAt = 0;

  constructor(private readonly p: AttemptParts) {}

  /**
   * The safety check of a cooldown lifted early whose message this worker missed: at most every
   * `safetyPollMs`, each cooldown known here and stored in the gate is compared with the gate's.
   */
  async recheck(): Promise<void> {
    const now = this.p.clock.now();
    if (now - this.recheckedAt < this.p.settings.safetyPollMs) return;
    this.recheckedAt = now;
    for (const bot of this.p.pacing.syncable()) await this.sync(bot);
  }

  /** The bot's cooldown known here becomes the gate's (ended, when the gate has none). */
  async sync(bot: string): Promise<void> {
    const s = await this.p.routing.status(bot).catch(() => undefined);
    if (s) this.p.pacing.sync(bot, s.state === 'cooldown' ? s.until : undefined);
  }
}
