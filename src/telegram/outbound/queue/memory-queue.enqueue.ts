import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import { memoryStores } from '../../../common/memory-stores.js';
import { type Job, type NewJob, laneOf } from '../outbound.types.js';
import type { MemoryQueueState } from './memory-queue.state.js';
import type { EnqueueOutcome } from './outbound-queue.store.js';

/**
 * Queues the jobs in order (OutboundQueueStore.enqueue) unless the batch does not fit in `maxJobs`: then none
 * is queued (MemoryStoreFullError). A newer job with the collapse key of a waiting job of its lane (not the
 * held head) replaces it.
 */
export function enqueueJobs(
  s: MemoryQueueState,
  maxJobs: number,
  jobs: NewJob[],
  now: number,
): EnqueueOutcome[] {
  s.purge(now);
  const fresh = new Set(jobs.map((n) => n.id).filter((id) => !s.jobs.has(id))).size;
  if (s.jobs.size + fresh > maxJobs) {
    s.purge(now, true);
    if (s.jobs.size + fresh > maxJobs) {
      memoryStores.refused('outbound_jobs', 1);
      throw new MemoryStoreFullError('outbound_jobs', maxJobs);
    }
  }
  return jobs.map((n): EnqueueOutcome => {
    if (s.jobs.has(n.id)) return 'duplicate';
    const lane = laneOf(n);
    const job: Job = { ...n, state: 'queued', attempts: 0, createdAt: now };
    s.jobs.set(n.id, job);
    const line = s.line(lane);
    let outcome: EnqueueOutcome = 'queued';
    if (n.collapseKey !== undefined) {
      const ck = `${lane}\n${n.collapseKey}`;
      const old = s.jobs.get(s.collapse.get(ck) ?? '');
      const held = s.leases.has(lane) && line[0] === old?.id;
      if (old && (old.state === 'queued' || old.state === 'waiting') && !held) {
        line.splice(line.indexOf(old.id), 1);
        Object.assign(old, { state: 'collapsed', collapsedBy: n.id, finishedAt: now });
        outcome = 'replaced';
      }
      s.collapse.set(ck, n.id);
    }
    line.push(n.id);
    if (!s.due.has(lane)) s.due.set(lane, { prio: n.priority, at: Math.max(now, n.notBefore) });
    return outcome;
  });
}
