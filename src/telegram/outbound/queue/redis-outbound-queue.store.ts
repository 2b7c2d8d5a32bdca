import type { IdCipher } from '../id-cipher.js';
import type { Job, NewJob } from '../outbound.types.js';
import type {
  CancelOutcome,
  Claimed,
  EnqueueOutcome,
  Lease,
  OutboundQueueStore,
  QueueBacklog,
  Settlement,
} from './outbound-queue.store.js';
import { cancelJob, replayJobs } from './redis-queue.cancel.js';
import { claimLanes } from './redis-queue.claim.js';
import { enqueueJobs } from './redis-queue.enqueue.js';
import { PartitionHints } from './redis-queue.hints.js';
import { RedisQueueParts, type Runner } from './redis-queue.parts.js';
import { deadJobs, getJob, laneBacklog, laneDepth } from './redis-queue.reads.js';
import { settleLease, wakeLanes } from './redis-queue.settle.js';
import { moveLane } from './redis-lane-move.js';
import { PartitionOwners } from './partition-owners.js';

export { liftChannel, wakeChannel } from './redis-queue.parts.js';

/**
 * The queue in Redis: `partitions` partitions, each under its own hash tag
 * `{<env>:<service>:q<k>}` (spread over a Cluster's slots); a lane lives in
 * the partition of its key, and every change of a lane is one Lua call there.
 * A job id points to its partition (`…:id:<job id>` in the id's own
 * partition), so the status of a job is found from its id alone.
 *
 * Each role is a piece of its own over the shared RedisQueueParts (connection, keys, ids) and this
 * instance's PartitionHints: enqueue, claim, settle (and wake), cancel and replay, the lane move
 * (redis-lane-move.ts), the reads.
 */
export class RedisOutboundQueueStore implements OutboundQueueStore {
  private readonly p: RedisQueueParts;
  private readonly hints = new PartitionHints();

  constructor(
    redis: Runner,
    base: string,
    partitions: number,
    retentionMs: number,
    /** Chat ids in Redis: lanes by pseudonym, the job's chat sealed (docs/security.md#ids-in-redis). */
    ids?: IdCipher,
    /** The partitions this process's worker claims from (default: all, as for a lone worker). */
    private readonly owners = new PartitionOwners(partitions, Infinity),
  ) {
    this.p = new RedisQueueParts(redis, base, partitions, retentionMs, ids);
  }

  enqueue(jobs: NewJob[], now: number): Promise<EnqueueOutcome[]> {
    return enqueueJobs(this.p, this.hints, jobs, now);
  }

  claim(now: number, leaseMs: number, max: number, idle = false): Promise<Claimed> {
    return claimLanes(this.p, this.hints, this.owners, { now, leaseMs, max, idle });
  }

  settle(lease: Lease, s: Settlement, now: number, nextAt = now): Promise<boolean> {
    return settleLease(this.p, this.hints, lease, s, now, nextAt);
  }

  /** Lanes may have become due in partition `k` (another instance queued one; undefined: anywhere): visited again. */
  forget(k?: number): void {
    this.hints.forget(k);
  }

  get(id: string): Promise<Job | undefined> {
    return getJob(this.p, id);
  }

  dead(limit: number): Promise<Job[]> {
    return deadJobs(this.p, limit);
  }

  replay(ids: string[], now: number, deadlineMs: number): Promise<string[]> {
    return replayJobs(this.p, this.hints, ids, now, deadlineMs);
  }

  cancel(id: string, now: number): Promise<CancelOutcome> {
    return cancelJob(this.p, id, now);
  }

  async migrate(lease: Lease, to: string, now: number): Promise<string[]> {
    const moved = await moveLane(this.p, lease, to, now);
    this.hints.forget();
    return moved;
  }

  wake(bot: string, now: number): Promise<number> {
    return wakeLanes(this.p, this.hints, bot, now);
  }

  depth(): Promise<number> {
    return laneDepth(this.p);
  }

  backlog(maxLanes: number): Promise<{ queues: QueueBacklog[]; truncated: boolean }> {
    return laneBacklog(this.p, maxLanes);
  }
}
