import type { MemoryQueueState } from './memory-queue.state.js';
import type { Lease, Settlement } from './outbound-queue.store.js';

/** Settles a held head job (OutboundQueueStore.settle); false when the lease is not the lane's. */
export function settleLease(
  s: MemoryQueueState,
  lease: Lease,
  how: Settlement,
  now: number,
  nextAt: number,
): boolean {
  const line = s.lanes.get(lease.lane);
  const job = s.jobs.get(lease.job.id);
  if (s.leases.get(lease.lane) !== lease.token || !line || line[0] !== job?.id || !job)
    return false;
  s.leases.delete(lease.lane);
  s.lost.delete(job.id);
  if (how.kind === 'wait') {
    Object.assign(job, { state: how.state, waitUntil: how.until, lastError: how.error });
    if (how.attempts !== undefined) job.attempts = how.attempts;
    if (how.bot !== undefined) job.bot = how.bot;
    s.due.get(lease.lane)!.at = how.keepPlace
      ? Math.min(how.until, lease.place ?? how.until)
      : how.until;
    return true;
  }
  line.shift();
  job.finishedAt = now;
  job.waitUntil = undefined;
  if (how.kind === 'sent')
    Object.assign(job, { state: 'sent', bot: how.bot, messageId: how.messageId });
  else {
    Object.assign(job, { state: 'dead', reason: how.reason, lastError: how.error });
    if (how.attempts !== undefined) job.attempts = how.attempts;
    if (how.bot !== undefined) job.bot = how.bot;
    s.deadAt.set(job.id, now);
  }
  s.freeCollapse(lease.lane, job);
  s.handOn(lease.lane, line, nextAt);
  return true;
}
