import { memoryStores } from '../../../common/memory-stores.js';
import type { Job, NewJob } from '../outbound.types.js';
import { cancelJob, replayJobs } from './memory-queue.cancel.js';
import { claimLanes, wakeLanes } from './memory-queue.claim.js';
import { enqueueJobs } from './memory-queue.enqueue.js';
import { migrateLane } from './memory-queue.migrate.js';
import { deadJobs, laneBacklog, laneDepth } from './memory-queue.reads.js';
import { settleLease } from './memory-queue.settle.js';
import { MemoryQueueState } from './memory-queue.state.js';
import type {
  CancelOutcome,
  Claimed,
  EnqueueOutcome,
  Lease,
  OutboundQueueStore,
  QueueBacklog,
  Settlement,
} from './outbound-queue.store.js';

/** `f` run now; its answer, or what it threw, as a promise (each piece is one synchronous step). */
function step<T>(f: () => T): Promise<T> {
  return new Promise((resolve) => resolve(f()));
}

/**
 * The embedded queue: the same lanes, leases and collapse rules as the
 * Redis store, in this process's memory. Not durable: a restart loses every
 * queued job (documented); it serves one instance without Redis. Bounded: at
 * most `maxJobs` jobs, queued or kept for their retention (a kept job is what
 * makes a repeated `job_id` a duplicate, so none is dropped early); a batch
 * that does not fit is refused whole (503 `notifications_unavailable`).
 *
 * The state is MemoryQueueState; each role is a piece of its own: enqueue, claim (and wake), settle, cancel
 * and replay, the lane move, the reads.
 */
export class MemoryOutboundQueueStore implements OutboundQueueStore {
  private readonly s: MemoryQueueState;

  constructor(
    retentionMs: number,
    private readonly maxJobs = 100_000,
  ) {
    this.s = new MemoryQueueState(retentionMs);
    memoryStores.track('outbound_jobs', this.s.jobs);
  }

  enqueue(jobs: NewJob[], now: number): Promise<EnqueueOutcome[]> {
    return step(() => enqueueJobs(this.s, this.maxJobs, jobs, now));
  }

  claim(now: number, leaseMs: number, max: number): Promise<Claimed> {
    return step(() => claimLanes(this.s, now, leaseMs, max));
  }

  settle(lease: Lease, s: Settlement, now: number, nextAt = now): Promise<boolean> {
    return step(() => settleLease(this.s, lease, s, now, nextAt));
  }

  get(id: string): Promise<Job | undefined> {
    const j = this.s.jobs.get(id);
    return Promise.resolve(j && { ...j });
  }

  dead(limit: number): Promise<Job[]> {
    return step(() => deadJobs(this.s, limit));
  }

  replay(ids: string[], now: number, deadlineMs: number): Promise<string[]> {
    return step(() => replayJobs(this.s, ids, now, deadlineMs));
  }

  cancel(id: string, now: number): Promise<CancelOutcome> {
    return step(() => cancelJob(this.s, id, now));
  }

  migrate(lease: Lease, to: string, now: number): Promise<string[]> {
    return step(() => migrateLane(this.s, lease, to, now));
  }

  wake(bot: string, now: number): Promise<number> {
    return step(() => wakeLanes(this.s, bot, now));
  }

  depth(): Promise<number> {
    return step(() => laneDepth(this.s));
  }

  backlog(maxLanes: number): Promise<{ queues: QueueBacklog[]; truncated: boolean }> {
    return step(() => laneBacklog(this.s, maxLanes));
  }
}
