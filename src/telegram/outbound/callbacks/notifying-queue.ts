import { appOfJob, clientJobId } from '../job-namespace.js';
import type { Job, NewJob } from '../outbound.types.js';
import type {
  CancelOutcome,
  Claimed,
  EnqueueOutcome,
  Lease,
  OutboundQueueStore,
  Settlement,
} from '../queue/outbound-queue.store.js';
import type { CallbackDispatcher } from './callback-dispatcher.js';

/**
 * The queue, telling the job's app when a settle made the job sent or dead
 * (a lost lease settles nothing and tells nothing). The worker does not
 * know about callbacks: this wraps the store it is given.
 */
export class NotifyingQueue implements OutboundQueueStore {
  constructor(
    private readonly q: OutboundQueueStore,
    private readonly callbacks: CallbackDispatcher,
  ) {}

  async settle(lease: Lease, s: Settlement, now: number, nextAt?: number): Promise<boolean> {
    const ok = await this.q.settle(lease, s, now, nextAt);
    if (ok && s.kind !== 'wait') {
      const id = lease.job.id;
      this.callbacks.emit(appOfJob(id), {
        type: s.kind === 'sent' ? 'notification.delivered' : 'notification.dead',
        job_id: clientJobId(id),
        state: s.kind,
        bot: s.bot,
        ...(s.kind === 'sent' ? { message_id: s.messageId } : { reason: s.reason }),
        at: new Date(now).toISOString(),
      });
    }
    return ok;
  }

  enqueue(jobs: NewJob[], now: number): Promise<EnqueueOutcome[]> {
    return this.q.enqueue(jobs, now);
  }
  claim(now: number, leaseMs: number, max: number, idle?: boolean): Promise<Claimed> {
    return this.q.claim(now, leaseMs, max, idle);
  }
  forget(partition?: number): void {
    this.q.forget?.(partition);
  }
  get(id: string): Promise<Job | undefined> {
    return this.q.get(id);
  }
  dead(limit: number): Promise<Job[]> {
    return this.q.dead(limit);
  }
  replay(ids: string[], now: number, deadlineMs: number): Promise<string[]> {
    return this.q.replay(ids, now, deadlineMs);
  }
  cancel(id: string, now: number): Promise<CancelOutcome> {
    return this.q.cancel(id, now);
  }
  migrate(lease: Lease, to: string, now: number): Promise<string[]> {
    return this.q.migrate(lease, to, now);
  }

  wake(bot: string, now: number): Promise<number> {
    return this.q.wake(bot, now);
  }

  depth(): Promise<number> {
    return this.q.depth();
  }
  backlog(maxLanes: number): ReturnType<OutboundQueueStore['backlog']> {
    return this.q.backlog(maxLanes);
  }
}
