import type { DeadReason } from '../outbound.types.js';
import { chatKind } from '../outbound.types.js';
import type { Lease, Settlement } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';

/** Settles a held job: waiting at its lane's head (dead instead when the wait ends past its deadline), or dead. */
export class LaneSettler {
  constructor(private readonly p: AttemptParts) {}

  async wait(
    lease: Lease,
    until: number,
    state: 'queued' | 'waiting',
    o: Partial<Settlement & { kind: 'wait' }>,
  ) {
    if (until > lease.job.deadline)
      return this.dead(lease, 'deadline', o.bot ?? lease.job.bot, o.error, o.attempts);
    await this.p.queue.settle(
      lease,
      {
        kind: 'wait',
        until,
        state,
        attempts: o.attempts,
        bot: o.bot,
        error: o.error,
        keepPlace: o.keepPlace,
      },
      this.p.clock.now(),
    );
  }

  async dead(lease: Lease, reason: DeadReason, bot?: string, error?: string, attempts?: number) {
    const { job } = lease;
    this.p.metrics.dead.inc({
      bot: bot ?? 'none',
      method: job.method,
      chat_type: chatKind(job.chatId),
      reason,
    });
    await this.p.queue.settle(
      lease,
      { kind: 'dead', reason, bot, error, attempts },
      this.p.clock.now(),
    );
  }
}
