import type { Job, Priority } from '../outbound.types.js';
import type { LostLease } from './outbound-queue.store.js';

/** When a lane may be claimed next, and at which priority. */
export interface Due {
  prio: Priority;
  /** Epoch ms the lane may be claimed (its lease end while held). */
  at: number;
}

/**
 * What the memory queue holds (memory-outbound-queue.store.ts): jobs by id, lanes (job ids in order), when
 * each lane is due, who holds it, collapse pointers and the dead-letter times. The pieces of the store (claim,
 * settle, cancel/replay, move, reads) each change it in one synchronous step, so no step sees another half
 * done.
 */
export class MemoryQueueState {
  readonly jobs = new Map<string, Job>();
  readonly lanes = new Map<string, string[]>();
  readonly due = new Map<string, Due>();
  /** Lane → the token of the lease that holds it. */
  readonly leases = new Map<string, string>();
  /** `<lane>\n<collapse key>` → the job id that holds the key in that lane. */
  readonly collapse = new Map<string, string>();
  readonly deadAt = new Map<string, number>();
  /** Per job: its leases that ended without a settle since its last one (see Lease.lost). */
  readonly lost = new Map<string, LostLease[]>();
  private purgedAt = 0;

  constructor(private readonly retentionMs: number) {}

  /** The lane's job ids, made (empty) if it had none. */
  line(lane: string): string[] {
    const line = this.lanes.get(lane) ?? [];
    this.lanes.set(lane, line);
    return line;
  }

  /** Frees `job`'s collapse key in `lane` if the job holds it. */
  freeCollapse(lane: string, job: Job): void {
    const ck = `${lane}\n${job.collapseKey}`;
    if (job.collapseKey !== undefined && this.collapse.get(ck) === job.id) this.collapse.delete(ck);
  }

  /** The lane's head left: its next job makes it due (from `from` or its not_before), or the lane is gone. */
  handOn(lane: string, line: string[], from: number): void {
    const next = this.jobs.get(line[0] ?? '');
    if (next) this.due.set(lane, { prio: next.priority, at: Math.max(next.notBefore, from) });
    else {
      this.due.delete(lane);
      this.lanes.delete(lane);
    }
  }

  /** Forgets finished jobs past their retention (at most once a second unless `force`). */
  purge(now: number, force = false): void {
    if (!force && now - this.purgedAt < 1_000) return;
    this.purgedAt = now;
    for (const [id, j] of this.jobs)
      if (j.finishedAt !== undefined && j.finishedAt + this.retentionMs < now) {
        this.jobs.delete(id);
        this.deadAt.delete(id);
      }
  }
}
