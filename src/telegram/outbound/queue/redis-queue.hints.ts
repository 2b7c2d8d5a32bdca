/** How long the claim's first pass passes over a partition found without any high-priority lane. */
export const NO_HIGH_RECHECK_MS = 500;
/**
 * How long a claim passes over a partition whose last visit found its next lane due later (a lane another
 * worker puts back or makes due there meanwhile is seen at most this late; this instance's own are seen at once).
 */
export const PARTITION_RECHECK_MS = 100;

/**
 * What this instance knows of the queue's partitions, to save claim calls (redis-queue.claim.ts): where no
 * lane was due when last seen, and where no high-priority lane was. Every change this instance makes to a
 * partition updates it; another instance's changes are seen at most PARTITION_RECHECK_MS late (or at once
 * through the wake channel: forget()).
 */
export class PartitionHints {
  /** The partition the next claim starts at (turns, so no partition always comes first). */
  private turn = 0;
  /** Partition → until when the first pass passes it over: its last visit found no high-priority lane at all. */
  readonly noHigh = new Map<number, number>();
  /** Partition → its next lane's due time as last seen here (Infinity: none), and when it was seen. */
  readonly nextDue = new Map<number, { at: number; seen: number }>();
  /** How often each partition (and all of them: `everywhere`) was changed or forgotten here: see `stamp`. */
  private readonly marks = new Map<number, number>();
  private everywhere = 0;

  /**
   * Taken before a claim call on partition `k`; its answer is noted (`saw`) only if no change or wake-up
   * came meanwhile. A wake message read before the claim's reply (two connections: either may be read
   * first) once left a stale "nothing due" that the wake's own claim then passed over: the job waited for
   * the safety poll.
   */
  stamp(k: number): number {
    return this.everywhere + (this.marks.get(k) ?? 0);
  }

  /** The claim call stamped `stamp` found partition `k`'s next lane due at `at` (Infinity: none), at `seen`. */
  saw(k: number, stamp: number, at: number, seen: number): void {
    if (stamp === this.stamp(k)) this.nextDue.set(k, { at, seen });
  }

  /** The partition a claim starts at; the next claim starts at the one after it. */
  start(partitions: number): number {
    return this.turn++ % partitions;
  }

  /**
   * A lane of partition `k` is due at `at` (this instance put it back or settled its head). A claim call
   * stamped before this has run before the settle, or may have: it saw the lane held, due at its lease end,
   * and its answer must not undo this (the worker skipped the partition and slept until then: 15 s).
   */
  due(k: number, at: number): void {
    this.marks.set(k, (this.marks.get(k) ?? 0) + 1);
    const known = this.nextDue.get(k);
    if (known && at < known.at) known.at = at;
  }

  /** Partition `k` was changed here (a job queued or replayed): visited by the next claim. */
  changed(k: number, high = false): void {
    this.forget(k);
    if (high) this.noHigh.delete(k);
  }

  /** Lanes may have become due in partition `k` (undefined: anywhere): visited again by the next claim. */
  forget(k?: number): void {
    if (k === undefined) {
      this.everywhere++;
      this.nextDue.clear();
    } else {
      this.marks.set(k, (this.marks.get(k) ?? 0) + 1);
      this.nextDue.delete(k);
    }
  }
}
