import { laneOf } from '../outbound.types.js';
import type { MemoryQueueState } from './memory-queue.state.js';
import type { CancelOutcome } from './outbound-queue.store.js';

/** Takes a queued or waiting job out of its lane (OutboundQueueStore.cancel), never a held head. */
export function cancelJob(s: MemoryQueueState, id: string, now: number): CancelOutcome {
  const job = s.jobs.get(id);
  if (!job) return 'unknown';
  if (!['queued', 'waiting', 'sending'].includes(job.state)) return 'finished';
  const lane = laneOf(job);
  const line = s.lanes.get(lane) ?? [];
  const head = line[0] === id;
  if (head && (job.state === 'sending' || s.leases.has(lane))) return 'sending';
  line.splice(line.indexOf(id), 1);
  Object.assign(job, { state: 'cancelled', finishedAt: now, waitUntil: undefined });
  s.freeCollapse(lane, job);
  if (head) s.handOn(lane, line, now);
  return 'cancelled';
}

/** Queues dead jobs again at the end of their lanes (OutboundQueueStore.replay); the ids replayed. */
export function replayJobs(
  s: MemoryQueueState,
  ids: string[],
  now: number,
  deadlineMs: number,
): string[] {
  const done: string[] = [];
  for (const id of ids) {
    const job = s.jobs.get(id);
    if (!job || job.state !== 'dead') continue;
    s.deadAt.delete(id);
    Object.assign(job, {
      state: 'queued',
      attempts: 0,
      deadline: now + deadlineMs,
      notBefore: now,
    });
    for (const k of ['reason', 'lastError', 'finishedAt', 'waitUntil'] as const) delete job[k];
    const lane = laneOf(job);
    s.line(lane).push(id);
    if (!s.due.has(lane)) s.due.set(lane, { prio: job.priority, at: now });
    done.push(id);
  }
  return done;
}
