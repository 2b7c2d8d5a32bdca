import { randomUUID } from 'node:crypto';
import { PRIORITIES } from '../outbound.types.js';
import type { MemoryQueueState } from './memory-queue.state.js';
import type { Claimed, Lease } from './outbound-queue.store.js';

/** Holds up to `max` due lanes, high priority first (OutboundQueueStore.claim). */
export function claimLanes(
  s: MemoryQueueState,
  now: number,
  leaseMs: number,
  max: number,
): Claimed {
  const out: Lease[] = [];
  let nextAt: number | undefined;
  for (const prio of PRIORITIES) {
    for (const [lane, d] of s.due) {
      if (d.prio !== prio) continue;
      if (d.at > now || out.length >= max) {
        nextAt = Math.min(nextAt ?? Infinity, Math.max(d.at, now));
        continue;
      }
      const job = s.jobs.get(s.lanes.get(lane)?.[0] ?? '');
      if (!job) {
        s.due.delete(lane);
        s.lanes.delete(lane);
        continue;
      }
      if (job.priority !== prio || job.notBefore > now) {
        s.due.set(lane, { prio: job.priority, at: Math.max(d.at, job.notBefore) });
        continue;
      }
      const old = s.leases.get(lane);
      const reclaimed = old !== undefined && job.state === 'sending';
      const lost = s.lost.get(job.id) ?? [];
      if (reclaimed) lost.push({ token: old, ended: d.at });
      if (lost.length > 0) s.lost.set(job.id, lost);
      const token = randomUUID();
      s.leases.set(lane, token);
      const place = d.at;
      d.at = now + leaseMs;
      job.state = 'sending';
      out.push({ lane, token, job: { ...job }, reclaimed, expires: d.at, lost: [...lost], place });
    }
  }
  return { leases: out, nextAt };
}

/** Makes due now the unheld lanes whose head waits for `bot` (OutboundQueueStore.wake); how many. */
export function wakeLanes(s: MemoryQueueState, bot: string, now: number): number {
  let woken = 0;
  for (const [lane, d] of s.due) {
    const job = s.jobs.get(s.lanes.get(lane)?.[0] ?? '');
    if (d.at <= now || s.leases.has(lane) || job?.state !== 'waiting' || job.bot !== bot) continue;
    d.at = now;
    job.waitUntil = now;
    woken++;
  }
  return woken;
}
