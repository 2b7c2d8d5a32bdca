import { appOfJob } from '../job-namespace.js';
import { type Job, laneOf } from '../outbound.types.js';
import { mergeLane } from './lane-merge.js';
import type { MemoryQueueState } from './memory-queue.state.js';
import type { Lease } from './outbound-queue.store.js';

/**
 * Moves a held lane's jobs of its head's app to the lane of chat `to` (OutboundQueueStore.migrate), in one
 * step; the ids moved, oldest first, or [] when the lease is not the lane's. A moved job holds its collapse
 * key in the new lane; when a job still waiting there (not the held head) holds it, the older of the two is
 * collapsed by the newer (lua/telegram_queue_adopt.lua does the same).
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
  const held = s.leases.has(dest);
  const there = s.lanes.get(dest) ?? [];
  const c: Collapsing = {
    dest,
    sending: held ? there[0] : undefined,
    before: new Set(),
    gone: new Set(),
  };
  for (const id of moved) {
    const j = s.jobs.get(id)!;
    s.freeCollapse(lease.lane, j);
    Object.assign(j, { chatId: to, state: 'queued', waitUntil: undefined });
    if (j.collapseKey !== undefined) collapseInto(s, c, j, now);
    c.before.add(id);
  }
  const left = (ids: string[]) => ids.filter((id) => !c.gone.has(id));
  const merged = mergeLane(left(there), held, left(moved), (id) => s.jobs.get(id)?.createdAt ?? 0);
  s.lanes.set(dest, merged);
  const first = s.jobs.get(merged[0]!)!;
  if (!held) s.due.set(dest, { prio: first.priority, at: Math.max(now, first.notBefore) });
  s.lanes.set(lease.lane, stay);
  s.handOn(lease.lane, stay, now);
  return moved;
}

/** One move's collapse bookkeeping: the new lane, its held head, the jobs moved so far and those collapsed. */
interface Collapsing {
  dest: string;
  sending: string | undefined;
  before: Set<string>;
  gone: Set<string>;
}

/**
 * Moved job `j` takes its collapse key in the new lane. With the key's holder there still waiting (not the held
 * head): the one posted first (moved before `j`, or older; on a tie `j`) is collapsed by the other, which holds
 * the key.
 */
function collapseInto(s: MemoryQueueState, c: Collapsing, j: Job, now: number): void {
  const ck = `${c.dest}\n${j.collapseKey}`;
  const r = s.jobs.get(s.collapse.get(ck) ?? '');
  let newer = j;
  const waiting = r && (r.state === 'queued' || r.state === 'waiting') && laneOf(r) === c.dest;
  if (r && waiting && r.id !== j.id && r.id !== c.sending) {
    const older = c.before.has(r.id) || r.createdAt < j.createdAt ? r : j;
    newer = older === r ? j : r;
    Object.assign(older, { state: 'collapsed', collapsedBy: newer.id, finishedAt: now });
    c.gone.add(older.id);
  }
  s.collapse.set(ck, newer.id);
}
