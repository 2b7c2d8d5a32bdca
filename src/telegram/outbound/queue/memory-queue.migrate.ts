import { appOfJob } from '../job-namespace.js';
import { laneOf } from '../outbound.types.js';
import { mergeLane } from './lane-merge.js';
import type { MemoryQueueState } from './memory-queue.state.js';
import type { Lease } from './outbound-queue.store.js';

/**
 * Moves a held lane's jobs of its head's app to the lane of chat `to` (OutboundQueueStore.migrate), in one
 * step; the ids moved, oldest first, or [] when the lease is not the lane's.
 */
export function migrateLane(s: MemoryQueueState, lease: Lease, to: string, now: number): string[] {
  const line = s.lanes.get(lease.lane);
  const head = s.jobs.get(lease.job.id);
  if (s.leases.get(lease.lane) !== lease.token || !line || line[0] !== head?.id || !head) return [];
  // Only the head's app's jobs move: another app sending to the same chat learns the move itself.
  const app = appOfJob(head.id);
  const moved = line.filter((id) => appOfJob(id) === app);
  const stay = line.filter((id) => appOfJob(id) !== app);
  s.leases.delete(lease.lane);
  s.lost.delete(head.id);
  const dest = laneOf({ ...head, chatId: to });
  for (const id of moved) {
    const j = s.jobs.get(id)!;
    const ck = `${lease.lane}\n${j.collapseKey}`;
    if (j.collapseKey !== undefined && s.collapse.get(ck) === id) {
      s.collapse.delete(ck);
      const nk = `${dest}\n${j.collapseKey}`;
      if (!s.collapse.has(nk)) s.collapse.set(nk, id);
    }
    Object.assign(j, { chatId: to, state: 'queued', waitUntil: undefined });
  }
  const held = s.leases.has(dest);
  const there = s.lanes.get(dest) ?? [];
  const merged = mergeLane(there, held, moved, (id) => s.jobs.get(id)?.createdAt ?? 0);
  s.lanes.set(dest, merged);
  const first = s.jobs.get(merged[0]!)!;
  if (!held) s.due.set(dest, { prio: first.priority, at: Math.max(now, first.notBefore) });
  s.lanes.set(lease.lane, stay);
  s.handOn(lease.lane, stay, now);
  return moved;
}
