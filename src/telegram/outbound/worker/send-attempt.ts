import { setTimeout as sleep } from 'node:timers/promises';
import type { Lease } from '../queue/outbound-queue.store.js';
import { type AttemptParts, botBucket } from './attempt-parts.js';
import { sendAndSettle } from './bot-send.js';
import { chargeSlot } from './charge-slot.js';
import { CooldownSync } from './cooldown-sync.js';
import { departOrRelease } from './departure.js';
import { LaneSettler } from './lane-settler.js';
import { checkLease } from './lease-checks.js';
import { SendOutcome } from './send-outcome.js';

/**
 * One attempt at a held lane's head job: route, reserve a slot at the gate,
 * wait for it, send, settle. The whole retry loop stays inside the lane (the
 * job keeps its place until it is settled sent or dead), so a later job of
 * the chat never overtakes it. Slots are reserved up to `reserveAheadMs` +
 * `holdMs` ahead in the buckets every worker shares, so the sends of all workers
 * leave one interval apart, each lane in its turn; a lane whose bot has no slot
 * that soon tries the next bot of its scope (a full bot spills over to one with
 * room), else goes back to the queue with its place in line. A 429 is a
 * scheduling order: the cooldown goes to the gate (every worker sees it) and
 * the job waits, with no attempt counted; a send whose slot comes while its
 * bot cools down does not leave.
 */
export class SendAttempt {
  private readonly lanes: LaneSettler;
  private readonly outcome: SendOutcome;
  private readonly cooldowns: CooldownSync;
  /** Leases of attempts that have not reserved a slot (nor gone back) yet: they will take room too. */
  private readonly routing = new Set<Lease>();

  constructor(private readonly p: AttemptParts) {
    this.lanes = new LaneSettler(p);
    this.outcome = new SendOutcome(p, this.lanes);
    this.cooldowns = new CooldownSync(p);
  }

  async run(lease: Lease): Promise<void> {
    this.routing.add(lease);
    const left = { send: false };
    try {
      return await this.attempt(lease, left);
    } catch (e) {
      // A call failed before the send could leave (the gate or the queue: Redis down or slow): the lane goes
      // back, due in a second, instead of held until its lease ends (it was: 'sending' one leaseMs).
      if (!left.send)
        await this.lanes
          .wait(lease, this.p.clock.now() + 1_000, 'queued', {})
          .catch(() => undefined);
      throw e;
    } finally {
      this.routing.delete(lease);
    }
  }

  private async attempt(lease: Lease, left: { send: boolean }): Promise<void> {
    const { job } = lease;
    const now = this.p.clock.now();
    const s = this.p.settings;
    const chatId = await checkLease(this.p, this.lanes, lease, now);
    if (chatId === undefined) return;
    const excluded = new Set<string>();
    // Bots of the scope passed over because full (no slot within `horizon`): the lane tries the next one.
    const full = new Map<string, number>();
    const holdUntil = now + s.holdMs;
    const horizon = s.reserveAheadMs + s.holdMs;
    for (;;) {
      const bot = await this.p.routing.route(
        { ...job, chatId },
        full.size ? new Set([...excluded, ...full.keys()]) : excluded,
      );
      // Every other bot excluded or full too: the lane goes back for its first full bot.
      if (typeof bot === 'string' && full.size > 0) {
        const [id, until] = [...full][0]!;
        // It keeps its place in line: claimed again (from when a worker has room) before later lanes.
        return this.lanes.wait(lease, until, 'queued', { bot: id, keepPlace: true });
      }
      if (bot === 'disabled')
        return this.lanes.wait(lease, now + 1_000, 'waiting', {
          error: 'every bot of its scope is disabled',
        });
      if (typeof bot === 'string') return this.lanes.dead(lease, bot, job.bot);
      // A cooldown known here that the gate no longer has (lifted early, its message lost) ends here.
      if (this.p.pacing.cooling(bot.id) !== undefined) await this.cooldowns.sync(bot.id);
      const cooling = this.p.pacing.cooling(bot.id);
      if (cooling !== undefined) return this.lanes.wait(lease, cooling, 'waiting', { bot: bot.id });
      const methodKey = `${bot.id}|${job.method}`;
      const botB = botBucket(bot, s);
      const busy = this.p.pacing.busy(bot.id) ?? this.p.pacing.busy(methodKey);
      if (busy !== undefined) {
        full.set(bot.id, busy);
        continue;
      }
      const c = await chargeSlot(this.p, bot, lease, chatId, botB, horizon);
      if (c.kind === 'refused') {
        if (c.why === 'unreachable') excluded.add(bot.id);
        else this.p.routing.invalidate(bot.id);
        continue;
      }
      const interval = 1000 / botB.perSecond;
      if (c.kind === 'wait' && (c.bucket === 'bot' || c.bucket === 'method')) {
        const [key, iv] = c.bucket === 'bot' ? [bot.id, interval] : [methodKey, undefined];
        full.set(bot.id, this.p.pacing.refused(key, c.ms, iv, horizon));
        continue;
      }
      if (c.kind === 'wait') {
        const cool = c.why === 'cooldown' || c.why === 'chat_cooldown';
        // Another worker's 429: this worker's reserved sends of the bot stop here too, without asking Redis.
        if (c.why === 'cooldown') this.p.pacing.cooled(bot.id, now + c.ms, 'gate');
        // Its chat not ready: due at the chat's slot, not when that comes within the horizon (a slot the chat
        // sets far ahead moves the bot's line past every slot before it: phase B's p50 went 461 → 710 ms).
        const at = now + c.ms + (c.bucket === 'chat' ? horizon : 0);
        return this.lanes.wait(lease, at, cool ? 'waiting' : 'queued', { bot: bot.id });
      }
      this.p.pacing.reserved(bot.id, this.p.clock.now() + c.waitMs, interval, horizon);
      this.routing.delete(lease);
      if (c.waitMs > 0) await sleep(c.waitMs);
      const stop = await departOrRelease(this.p, bot.id, botB.perSecond, lease, holdUntil);
      if (stop !== undefined) {
        // Only a full window (no cooldown): the lane keeps its place in line.
        const keepPlace = this.p.pacing.cooling(bot.id) === undefined;
        return this.lanes.wait(lease, stop, keepPlace ? 'queued' : 'waiting', {
          bot: bot.id,
          keepPlace,
        });
      }
      left.send = true;
      return sendAndSettle(this.p, this.outcome, lease, bot, c, chatId);
    }
  }

  /** The safety check of a cooldown lifted early whose message this worker missed (CooldownSync.recheck). */
  recheck(): Promise<void> {
    return this.cooldowns.recheck();
  }

  /**
   * Room for newly claimed lanes (BotPacing.room over every bot), less the lanes claimed and not routed yet
   * (a claim right after a claim took the same room twice: its lanes went back).
   */
  room(): { at: number; lanes: number } {
    const s = this.p.settings;
    const r = this.p.pacing.room(this.p.routing.ids(), s.reserveAheadMs + s.holdMs);
    return { at: r.at, lanes: Math.max(0, r.lanes - this.routing.size) };
  }
}
