import { randomUUID } from 'node:crypto';
import type { Claimed, Lease } from './outbound-queue.store.js';
import { parseLost } from './outbound-queue.store.js';
import {
  NO_HIGH_RECHECK_MS,
  PARTITION_RECHECK_MS,
  type PartitionHints,
} from './redis-queue.hints.js';
import type { RedisQueueParts } from './redis-queue.parts.js';
import { decodeJob } from './redis-job-codec.js';
import { movedTo } from './redis-lane-move.js';

/** One lane a claim script call handed out: lane, token, reclaimed (1), the job hash, its place. */
type ClaimRow = [string, string, number, string[], string];

/**
 * Holds up to `max` due lanes (OutboundQueueStore.claim), lua/telegram_queue_claim.lua per partition. Two
 * passes over the partitions: high-priority lanes of every partition first, then every priority, so a
 * high-priority job does not wait behind a normal one of another partition. The first pass passes over, for
 * NO_HIGH_RECHECK_MS, a partition whose last visit found no high-priority lane at all (due or not): a claim
 * is then one script call per partition, not two. A high job queued through this instance clears that at
 * once; one queued through another instance is still claimed by the second pass (high first in its
 * partition), at worst that long after normal lanes of other partitions.
 */
export async function claimLanes(
  p: RedisQueueParts,
  hints: PartitionHints,
  now: number,
  leaseMs: number,
  max: number,
  idle: boolean,
): Promise<Claimed> {
  const leases: Lease[] = [];
  let nextAt: number | undefined;
  const start = hints.start(p.partitions);
  // An idle worker (a safety poll, a wake-up) skips the high-only pass: one call per partition.
  for (const levels of idle ? ['all'] : ['h', 'all'])
    for (let i = 0; i < p.partitions; i++) {
      const want = max - leases.length;
      if (want <= 0) break;
      const k = (start + i) % p.partitions;
      if (levels === 'h' && (hints.noHigh.get(k) ?? 0) > now) continue;
      // Nothing due there when last seen (and not since changed by this instance): one call saved per claim.
      const known = hints.nextDue.get(k);
      if (known && known.at > now && now - known.seen < PARTITION_RECHECK_MS) {
        if (known.at < Infinity) nextAt = Math.min(nextAt ?? Infinity, known.at);
        continue;
      }
      const pre = p.prefix(k);
      const r = await p.redis.script<[number, ...ClaimRow[]]>(
        'telegram_queue_claim',
        [`${pre}:lanes`],
        [pre, now, leaseMs, want, randomUUID(), levels],
      );
      if (r[0] >= 0) nextAt = Math.min(nextAt ?? Infinity, r[0]);
      if (levels === 'all') hints.nextDue.set(k, { at: r[0] >= 0 ? r[0] : Infinity, seen: now });
      if (levels === 'h') {
        if (r.length === 1 && r[0] < 0) hints.noHigh.set(k, now + NO_HIGH_RECHECK_MS);
        else hints.noHigh.delete(k);
      }
      for (const [lane, token, reclaimed, hash, place] of r.slice(1) as ClaimRow[])
        leases.push({
          lane,
          token,
          reclaimed: reclaimed === 1,
          expires: now + leaseMs,
          lost: parseLost(hash.find((_, i) => i % 2 === 1 && hash[i - 1] === 'lost')),
          job: decodeJob(hash, p.ids)!,
          place: Number(place),
          movedTo: movedTo(hash, lane, p.ids),
        });
    }
  return { leases, nextAt };
}
