import type { Job } from '../outbound.types.js';
import type { MemoryQueueState } from './memory-queue.state.js';
import type { QueueBacklog } from './outbound-queue.store.js';
import { addBacklog } from './queue-backlog.js';

/** Dead-lettered jobs, newest first (OutboundQueueStore.dead). */
export function deadJobs(s: MemoryQueueState, limit: number): Job[] {
  const ids = [...s.deadAt].sort((a, b) => b[1] - a[1]).slice(0, limit);
  return ids.flatMap(([id]) => (s.jobs.has(id) ? [{ ...s.jobs.get(id)! }] : []));
}

/** Jobs in lanes (OutboundQueueStore.depth). */
export function laneDepth(s: MemoryQueueState): number {
  let n = 0;
  for (const l of s.lanes.values()) n += l.length;
  return n;
}

/** Backlog per queue, reading at most `maxLanes` lanes (OutboundQueueStore.backlog). */
export function laneBacklog(
  s: MemoryQueueState,
  maxLanes: number,
): { queues: QueueBacklog[]; truncated: boolean } {
  const by = new Map<string, QueueBacklog>();
  let seen = 0;
  for (const [lane, ids] of s.lanes) {
    const head = s.jobs.get(ids[0] ?? '');
    if (!head) continue;
    if (++seen > maxLanes) return { queues: [...by.values()], truncated: true };
    const queue = lane.slice(0, lane.lastIndexOf('|'));
    const due = Math.max(head.createdAt, head.notBefore);
    addBacklog(by, { queue, jobs: ids.length, lanes: 1, oldestDueAt: due });
  }
  return { queues: [...by.values()], truncated: false };
}
