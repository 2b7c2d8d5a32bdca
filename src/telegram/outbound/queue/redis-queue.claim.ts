import type { Claimed, Lease } from './outbound-queue.store.js';
import type { PartitionOwners } from './partition-owners.js';
import { NONE_CLAIMED, claimCall } from './redis-claim-call.js';
import {
  NO_HIGH_RECHECK_MS,
  PARTITION_RECHECK_MS,
  type PartitionHints,
} from './redis-queue.hints.js';
import type { RedisQueueParts } from './redis-queue.parts.js';

/** One claim: its time, the lease length, how many lanes at most, and whether the worker is idle. */
export interface ClaimAsk {
  now: number;
  leaseMs: number;
  max: number;
  idle: boolean;
}

/**
 * Holds up to `max` due lanes (OutboundQueueStore.claim), lua/telegram_queue_claim.lua per partition. Two
 * passes over the partitions this worker owns (PartitionOwners): high-priority lanes of each first, then
 * every priority, so a high-priority job does not wait behind a normal one of another partition. The first
 * pass passes over, for NO_HIGH_RECHECK_MS, a partition whose last visit found no high-priority lane at all
 * (due or not): a claim is then one script call per partition, not two. A high job queued through this
 * instance clears that at once; one queued through another instance is still claimed by the second pass
 * (high first in its partition), at worst that long after normal lanes of other partitions. Room left then
 * goes to lanes that waited past the bound in others' partitions (`steal`).
 */
export async function claimLanes(
  p: RedisQueueParts,
  hints: PartitionHints,
  owners: PartitionOwners,
  { now, leaseMs, max, idle }: ClaimAsk,
): Promise<Claimed> {
  const leases: Lease[] = [];
  let nextAt: number | undefined;
  const start = hints.start(p.partitions);
  // Oldest due first, as last seen here (unseen first, ties in turn): in turn alone, a partition that drew
  // more lanes was drained last, and its two-job chats' second jobs were a backlog's tail.
  const seen = (k: number) => Math.min(hints.nextDue.get(k)?.at ?? 0, Number.MAX_VALUE);
  const order = Array.from({ length: p.partitions }, (_, i) => (start + i) % p.partitions);
  order.sort((a, b) => seen(a) - seen(b));
  try {
    await passes(p, hints, owners, { now, leaseMs, max, idle }, leases, order, (at) => {
      nextAt = Math.min(nextAt ?? Infinity, at);
    });
    if (leases.length < max) await steal(p, owners, { now, leaseMs, max, idle }, leases);
  } catch (e) {
    // A call failed after others took leases: those are held in Redis, and are worked on now (dropped,
    // they waited out their lease before any worker could claim them again).
    if (leases.length === 0) throw e;
  }
  const next = owners.nextSteal(now);
  return { leases, nextAt: next < (nextAt ?? Infinity) ? next : nextAt };
}

/** The two passes over the partitions this worker owns, in `order` (claimLanes); `due`: a next due time seen. */
async function passes(
  p: RedisQueueParts,
  hints: PartitionHints,
  owners: PartitionOwners,
  { now, leaseMs, max, idle }: ClaimAsk,
  leases: Lease[],
  order: number[],
  due: (at: number) => void,
): Promise<void> {
  // An idle worker (a safety poll, a wake-up) skips the high-only pass: one call per partition.
  for (const levels of idle ? ['all'] : ['h', 'all'])
    for (const k of order) {
      const want = max - leases.length;
      if (want <= 0) break;
      if (!owners.owns(k)) continue;
      if (levels === 'h' && (hints.noHigh.get(k) ?? 0) > now) continue;
      // Nothing due there when last seen (and not since changed by this instance): one call saved per claim.
      const known = hints.nextDue.get(k);
      if (known && known.at > now && now - known.seen < PARTITION_RECHECK_MS) {
        if (known.at < Infinity) due(known.at);
        continue;
      }
      const stamp = hints.stamp(k);
      const r = await claimCall(
        p.redis,
        p.ids,
        p.prefix(k),
        { now, leaseMs, want, levels },
        leases,
      );
      if (r >= 0) due(r);
      if (levels === 'all') hints.saw(k, stamp, r >= 0 ? r : Infinity, now);
      if (levels === 'h') {
        if (r === NONE_CLAIMED) hints.noHigh.set(k, now + NO_HIGH_RECHECK_MS);
        else hints.noHigh.delete(k);
      }
    }
}

/** Room left after its own partitions: lanes that waited past the bound in others' (PartitionOwners). */
async function steal(
  p: RedisQueueParts,
  owners: PartitionOwners,
  { now, leaseMs, max }: ClaimAsk,
  leases: Lease[],
): Promise<void> {
  for (const k of owners.stealable(now)) {
    const want = max - leases.length;
    if (want <= 0) return;
    const a = { now, leaseMs, want, levels: 'all', upto: now - owners.stealMs };
    const r = await claimCall(p.redis, p.ids, p.prefix(k), a, leases);
    owners.looked(k, now, r >= 0 ? r : undefined);
  }
}
