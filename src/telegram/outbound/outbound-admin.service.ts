import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { reloadToken, tokenFingerprint } from '../bot-token.js';
import { TelegramBots } from '../telegram-bots.js';
import { SEND_GATE_STORE, type SendGateStore } from './gate/send-gate.store.js';
import { type JobView, jobView } from './job-view.js';
import { type BotView, OutboundAdminError } from './outbound-admin.types.js';
import type { BotState } from './outbound.types.js';
import { OutboundWorkers } from './outbound-workers.service.js';
import { OUTBOUND_QUEUE_STORE, type OutboundQueueStore } from './queue/outbound-queue.store.js';
import { BACKLOG_MAX_LANES, type QueueView, botQueue, queueViews } from './outbound-queues.js';

export { type BotView, OutboundAdminError } from './outbound-admin.types.js';

/**
 * The outbound sender's admin port: the bot registry (list, change a state,
 * rotate a token) and the dead letters (list, replay). Every change is made in
 * the shared stores, so every worker sees it at its next send.
 */
@Injectable()
export class OutboundAdmin {
  private readonly log = new Logger('TelegramOutbound');

  constructor(
    private readonly bots: TelegramBots,
    @Inject(SEND_GATE_STORE) private readonly gate: SendGateStore,
    @Inject(OUTBOUND_QUEUE_STORE) private readonly queue: OutboundQueueStore,
    private readonly workers: OutboundWorkers,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private bot(id: string) {
    const b = this.bots.get(id);
    if (!b) throw new OutboundAdminError('unknown_bot', `no bot "${id}"`);
    return b;
  }

  /** Every bot, with its share of the queues (jobs, lag). */
  async list(): Promise<BotView[]> {
    const { queues } = await this.queues();
    return Promise.all(
      this.bots.all().map(async (b) => ({ ...(await this.view(b.id)), ...botQueue(b.id, queues) })),
    );
  }

  /** Every queue: jobs, chats and lag, by scope and by pinned bot (counts only, never a chat). */
  async queues(): Promise<{ queues: QueueView[]; truncated: boolean }> {
    const { queues, truncated } = await this.queue.backlog(BACKLOG_MAX_LANES);
    return { queues: queueViews(this.bots.all(), queues, this.clock.now()), truncated };
  }

  async view(id: string): Promise<BotView> {
    const b = this.bot(id);
    const s = await this.gate.status(id);
    const a = await this.gate.answers(id);
    return {
      ...s,
      id,
      scope: b.scope,
      token: b.fingerprint,
      until: s.until === undefined ? undefined : new Date(s.until).toISOString(),
      inflight: await this.gate.inflight(id),
      answers_15m: a.answers,
      rate_limited_15m: a.rateLimited,
      rate_limited_ratio: a.answers > 0 ? a.rateLimited / a.answers : null,
      ...this.workers.health.view(id),
    };
  }

  /**
   * Sets a bot's state. A cooldown ended early (any other state, or a shorter cooldown) frees the jobs that
   * wait for it: their lanes are due at once, not at the old end.
   */
  async setState(id: string, state: BotState, until?: number, reason?: string): Promise<BotView> {
    this.bot(id);
    const was = await this.gate.status(id);
    await this.gate.setStatus(id, { state, until, reason: reason ?? 'admin' });
    this.workers.routing.invalidate(id);
    const shortened = state !== 'cooldown' || (until ?? 0) < (was.until ?? 0);
    const woken =
      was.state === 'cooldown' && shortened ? await this.workers.lift(id, this.clock.now()) : 0;
    this.log.log({ msg: 'bot state changed', bot: id, state, woken });
    return this.view(id);
  }

  /**
   * Token rotation: stop assigning sends to the bot, wait for its sends in
   * flight (on every worker) to end, read the token again from its source and
   * bump the generation (each worker reloads before its next send), resume.
   * Jobs wait in their lanes meanwhile: none is lost or moved.
   */
  async rotate(id: string, drainMs: number): Promise<BotView & { previous: string }> {
    const b = this.bot(id);
    const previous = tokenFingerprint(b.token);
    let token: string;
    try {
      token = reloadToken(b);
    } catch (e) {
      throw new OutboundAdminError('token_unreadable', (e as Error).message);
    }
    await this.gate.setStatus(id, { rotating: true });
    try {
      const until = this.clock.now() + drainMs;
      while ((await this.gate.inflight(id)) > 0) {
        if (this.clock.now() > until)
          throw new OutboundAdminError(
            'rotation_timeout',
            `sends of ${id} still in flight after ${drainMs} ms`,
          );
        await new Promise((r) => setTimeout(r, 20));
      }
      const s = await this.gate.status(id);
      await this.gate.setStatus(id, {
        bumpGen: true,
        // A new token lifts a revocation (the old token was the one refused).
        ...(s.state === 'revoked' ? { state: 'active' as const, reason: 'rotated' } : {}),
      });
    } finally {
      await this.gate.setStatus(id, { rotating: false });
      this.workers.routing.invalidate(id);
    }
    this.log.log({
      msg: 'bot token rotated',
      bot: id,
      from: previous,
      to: tokenFingerprint(token),
    });
    return { ...(await this.view(id)), token: tokenFingerprint(token), previous };
  }

  async dead(limit: number): Promise<JobView[]> {
    return (await this.queue.dead(limit)).map(jobView);
  }

  async replay(ids: string[]): Promise<string[]> {
    const done = await this.queue.replay(
      ids,
      this.clock.now(),
      this.bots.settings.outbound.defaultDeadlineMs,
    );
    this.workers.wake();
    return done;
  }
}
