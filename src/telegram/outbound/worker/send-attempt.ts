import { setTimeout as sleep } from 'node:timers/promises';
import { currentChat } from '../gate/chat-migration.store.js';
import { DEPARTURE_KEEP_MS } from '../gate/send-gate.store.js';
import { appOfJob } from '../job-namespace.js';
import { chatKind } from '../outbound.types.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import { type AttemptParts, botBucket } from './attempt-parts.js';
import { type CallOutcome, answerOf, callBotApi } from './bot-call.js';
import { LaneSettler } from './lane-settler.js';
import { neverLeft } from './lost-sends.js';
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
  private recheckedAt = 0;
  /** Leases of attempts that have not reserved a slot (nor gone back) yet: they will take room too. */
  private readonly routing = new Set<Lease>();

  constructor(private readonly p: AttemptParts) {
    this.lanes = new LaneSettler(p);
    this.outcome = new SendOutcome(p, this.lanes);
  }

  async run(lease: Lease): Promise<void> {
    this.routing.add(lease);
    try {
      return await this.attempt(lease);
    } finally {
      this.routing.delete(lease);
    }
  }

  private async attempt(lease: Lease): Promise<void> {
    const { job } = lease;
    const now = this.p.clock.now();
    const s = this.p.settings;
    // A dead worker's job whose send provably never left is sent normally; one that may have left is ambiguous.
    if (lease.reclaimed && s.ambiguous === 'dead' && !(await neverLeft(this.p, lease)))
      return this.lanes.dead(
        lease,
        'ambiguous_timeout',
        job.bot,
        'its worker stopped while sending it',
      );
    if (now > job.deadline) return this.lanes.dead(lease, 'deadline', job.bot);
    // A group that became a supergroup: the lane is moved to the new id's lane (a move a dead worker left
    // half done, or a job queued to the old lane meanwhile), else sent to the new id where it is.
    const chatId = await currentChat(this.p.migrations, appOfJob(job.id) ?? '', job.chatId);
    const to = lease.movedTo ?? (chatId !== job.chatId ? chatId : undefined);
    if (to !== undefined && (await this.p.queue.migrate(lease, to, now)).length > 0) return;
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
      if (this.p.pacing.cooling(bot.id) !== undefined) await this.sync(bot.id);
      const cooling = this.p.pacing.cooling(bot.id);
      if (cooling !== undefined) return this.lanes.wait(lease, cooling, 'waiting', { bot: bot.id });
      const methodKey = `${bot.id}|${job.method}`;
      // The bot's own buckets (telegram.bots[].outbound.buckets), else the global ones.
      const b = bot.buckets ?? s.buckets;
      const botB = botBucket(bot, s);
      const busy = this.p.pacing.busy(bot.id) ?? this.p.pacing.busy(methodKey);
      if (busy !== undefined) {
        full.set(bot.id, busy);
        continue;
      }
      const c = await this.p.gate.charge({
        bot: bot.id,
        chatId,
        method: job.method,
        weight: s.methodWeights[job.method] ?? 1,
        sendId: lease.token,
        inflightMs: s.requestTimeoutMs + horizon + 1_000,
        buckets: {
          bot: botB,
          method: b.methods[job.method],
          chat: b[chatKind(chatId)],
        },
        maxWaitMs: horizon,
        aimd: { backoff: s.aimdBackoff, recoverPerSecond: s.aimdRecoverPerSecond },
      });
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
      const stop = await this.depart(bot.id, botB.perSecond, lease, holdUntil);
      if (stop !== undefined) {
        await this.p.gate.release(bot.id, lease.token).catch(() => undefined);
        // Only a full window (no cooldown): the lane keeps its place in line.
        const keepPlace = this.p.pacing.cooling(bot.id) === undefined;
        return this.lanes.wait(lease, stop, keepPlace ? 'queued' : 'waiting', {
          bot: bot.id,
          keepPlace,
        });
      }
      let out: CallOutcome;
      try {
        const payload = { ...job.payload, chat_id: chatId };
        out = await callBotApi(this.p.tokens.api(bot, c.gen), job.method, payload);
        // Known the instant the answer is read, before any other await: no reserved send of the bot
        // leaves after this (the cooldown's jitter and the gate follow in settle).
        if (out.kind === 'retry_after')
          this.p.pacing.cooled(bot.id, this.p.clock.now() + out.seconds * 1000, 'answer');
      } catch (e) {
        await this.p.gate.release(bot.id, lease.token).catch(() => undefined);
        throw e;
      }
      // The in-flight mark goes in the same round trip as the settlement's first call (for a 429, the
      // cooldown the other workers read at their next check: one round trip after the answer, not two).
      const released = this.p.gate
        .release(bot.id, lease.token, answerOf(out))
        .catch(() => undefined);
      try {
        return await this.outcome.settle(lease, bot, out, c.chatNextMs - c.waitMs, chatId);
      } finally {
        await released;
      }
    }
  }

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

  private async sync(bot: string): Promise<void> {
    const s = await this.p.routing.status(bot).catch(() => undefined);
    if (s) this.p.pacing.sync(bot, s.state === 'cooldown' ? s.until : undefined);
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

  /**
   * At the reserved slot: until when the send must not leave (its bot cools down — known here from this
   * worker's own 429s at once, else from the gate, which other workers' 429s set — or was taken out of
   * rotation), or undefined: go.
   * A full departure window (sends late on their slots bunching) is waited out here, up to `holdUntil`.
   */
  private async depart(bot: string, perSecond: number, lease: Lease, holdUntil: number) {
    const s = this.p.settings;
    for (;;) {
      // Only while the lease outlives the call: a send of a lease that may be reclaimed never leaves.
      if (this.p.clock.now() + s.requestTimeoutMs >= lease.expires) return this.p.clock.now();
      const local = this.p.pacing.cooling(bot);
      if (local !== undefined) return local;
      // Out of rotation while this send waited for its slot: it goes back and is routed again.
      if (this.p.health.out(bot)) return this.p.clock.now();
      const keep = s.leaseMs + DEPARTURE_KEEP_MS;
      const d = await this.p.gate.depart(bot, lease.token, s.departWindowMs, s.departMax, keep);
      // A 429 this worker read while the check was in Redis: the send does not leave (its departure stays
      // recorded, a harmless extra count in the window).
      const late = this.p.pacing.cooling(bot);
      if (late !== undefined) return late;
      if (d.kind === 'go') {
        this.p.pacing.departed(bot);
        return undefined;
      }
      if (d.kind === 'cool') {
        this.p.pacing.cooled(bot, d.until, 'gate');
        return d.until;
      }
      const now = this.p.clock.now();
      // The sends of this worker waiting for the window try again one bot interval apart, in turn, not all
      // at the instant its oldest departure leaves it (only one would go: the others' checks were for nothing).
      const at = this.p.pacing.line(
        `${bot}|depart`,
        now + d.ms,
        1000 / perSecond,
        holdUntil + s.departWindowMs,
      );
      if (at === undefined) return now + d.ms;
      await sleep(Math.max(1, at - now));
    }
  }
}
