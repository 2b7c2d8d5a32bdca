import { createHash, randomUUID } from 'node:crypto';

/** A worker's weight for a partition (rendezvous hashing): the first 32 bits of SHA-256 of "<id>:<k>". */
function weight(id: string, k: number): number {
  return createHash('sha256').update(`${id}:${k}`).digest().readUInt32BE(0);
}

/**
 * The owner of each of `partitions` partitions among the workers `members` (ids, any order, duplicates
 * ignored): rendezvous hashing with a cap of ⌈partitions ÷ workers⌉ each, so the shares differ by one at
 * most (3 / 3 / 2 of 8 for three workers) and a worker that joins or leaves moves few partitions. Every
 * worker computes the same answer from the same roster.
 */
export function assignPartitions(members: readonly string[], partitions: number): string[] {
  const ids = [...new Set(members)].sort();
  if (ids.length === 0) return [];
  const cap = Math.ceil(partitions / ids.length);
  const load = new Map<string, number>();
  const owners: string[] = [];
  for (let k = 0; k < partitions; k++) {
    const ranked = ids
      .map((id) => ({ id, w: weight(id, k) }))
      .sort((a, b) => b.w - a.w || (a.id < b.id ? -1 : 1));
    const pick = ranked.find((r) => (load.get(r.id) ?? 0) < cap)!.id;
    load.set(pick, (load.get(pick) ?? 0) + 1);
    owners.push(pick);
  }
  return owners;
}

/**
 * Which queue partitions this process's worker owns: it claims from those, and a wake message for a
 * partition wakes only its owner (docs/telegram-outbound.md#partition-owners). Until the roster of the
 * workers alive is known (a first beat; never without Redis, or in a process that does not send) it owns
 * every partition. A worker with room left after its own partitions may still take, elsewhere, lanes due for
 * longer than `stealMs`, looking at each other partition at most once per `stealMs`: no partition starves
 * (its owner stuck, or the workers' rosters not yet the same), and a lone worker drains everything.
 */
export class PartitionOwners {
  /** Owner per partition; empty: this worker owns all. */
  private owner: string[] = [];
  /** Another's partition: the earliest lane due there as known here (epoch ms), when this worker last looked. */
  private readonly elsewhere = new Map<number, { due: number; seen: number }>();

  constructor(
    readonly partitions: number,
    /** Milliseconds a lane waits in another's partition before this worker may take it. */
    readonly stealMs: number,
    /** This worker's id in the roster (random per process: names no host). */
    readonly self: string = randomUUID(),
  ) {}

  owns(k: number): boolean {
    return this.owner.length === 0 || this.owner[k] === this.self;
  }

  /** The partitions owned, as a count (for the admin view and tests). */
  get owned(): number {
    return this.owner.length === 0
      ? this.partitions
      : this.owner.filter((o) => o === this.self).length;
  }

  /** Shares the partitions out over the workers alive (this one always among them); returns those gained. */
  assign(members: readonly string[]): number[] {
    const had = Array.from({ length: this.partitions }, (_, k) => this.owns(k));
    this.owner = assignPartitions([...members, this.self], this.partitions);
    const gained: number[] = [];
    for (let k = 0; k < this.partitions; k++) {
      if (this.owns(k) === had[k]) continue;
      if (this.owns(k)) gained.push(k);
      // One lost is unknown here: looked at once, the next time this worker has room left.
      this.elsewhere.delete(k);
    }
    return gained;
  }

  /** A lane of another's partition is due at `due` (its wake message, heard by all): a hint for stealing. */
  heard(k: number, due: number): void {
    const e = this.elsewhere.get(k);
    if (e) e.due = Math.min(e.due, Number.isFinite(due) ? due : 0);
  }

  /** Others' partitions worth a look now: a lane there may have been due for `stealMs`, and not looked at since. */
  stealable(now: number): number[] {
    const out: number[] = [];
    for (let k = 0; k < this.partitions; k++)
      if (!this.owns(k) && this.stealAt(k) <= now) out.push(k);
    return out;
  }

  /** This worker looked at another's partition at `now`: its next lane is due at `next` (undefined: none). */
  looked(k: number, now: number, next: number | undefined): void {
    this.elsewhere.set(k, { due: next ?? Infinity, seen: now });
  }

  /** The earliest time (not before `now`) another's partition is worth a look; Infinity: none. */
  nextSteal(now: number): number {
    let at = Infinity;
    for (let k = 0; k < this.partitions; k++) if (!this.owns(k)) at = Math.min(at, this.stealAt(k));
    return Math.max(at, now);
  }

  private stealAt(k: number): number {
    const e = this.elsewhere.get(k);
    return e ? Math.max(e.due, e.seen) + this.stealMs : -Infinity;
  }
}
