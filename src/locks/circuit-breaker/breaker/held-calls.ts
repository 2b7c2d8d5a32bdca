/** One call holding a slot: since when (ms), how to stop it, and when it was stopped (winding down), if it was. */
interface Held {
  tenant: string;
  since: number;
  abort: (reason: unknown) => void;
  /** When it was stopped (ms), or undefined while it runs. */
  stoppedAt?: number;
}

/** Why a reclaimed call was stopped (the product ends it as if its client had gone away). */
export const RECLAIMED = 'circuit breaker: slot reclaimed for an app within its fair share';

/**
 * The calls holding a backend's slots, per tenant, with a way to stop each: so that an app over its fair share
 * cannot keep slots for good (an endless stream, a slow reader) while an app within its share waits. Slots are
 * otherwise never taken back (FairShare); this takes back the longest-held one of an app over its share, once it
 * has been held `afterMs`, and only when asked for a waiting app (SlotReclaim). A stopped call stays counted as
 * stopping until its slot is given back, so that two asks in a row do not take its tenant below its share (even
 * when its backend ignores the abort and it never settles); it counts as paid to waiting calls only for a grace.
 */
export class HeldCalls {
  private readonly calls = new Set<Held>();
  /** Stopped calls not wound down yet, per tenant (bounded by the held calls). */
  private readonly stoppingOf = new Map<string, number>();

  get size(): number {
    return this.calls.size;
  }

  /**
   * Calls stopped less than `graceMs` before `now` whose slot has not been given back yet: the slots on their way
   * to the waiting calls. One stopped longer ignored its abort; it still holds its slot, but no longer pays.
   */
  paid(now: number, graceMs: number): number {
    let n = 0;
    for (const h of this.calls) if (h.stoppedAt !== undefined && now - h.stoppedAt < graceMs) n++;
    return n;
  }

  /** Registers a held call; the returned function forgets it (call it when the slot is given back). */
  add(tenant: string, since: number, abort: (reason: unknown) => void): () => void {
    const held: Held = { tenant, since, abort };
    this.calls.add(held);
    return () => {
      if (!this.calls.delete(held) || held.stoppedAt === undefined) return;
      const left = (this.stoppingOf.get(tenant) ?? 1) - 1;
      if (left > 0) this.stoppingOf.set(tenant, left);
      else this.stoppingOf.delete(tenant);
    };
  }

  /**
   * Stops the longest-held call, held at least `afterMs` at `now`, of a tenant for which `over` (told how many of
   * its calls are stopping already) is true; true when one was stopped (its slot frees once it has wound down).
   */
  reclaim(
    now: number,
    afterMs: number,
    over: (tenant: string, stopping: number) => boolean,
  ): boolean {
    let oldest: Held | undefined;
    for (const h of this.calls)
      if (h.stoppedAt === undefined && now - h.since >= afterMs)
        if (!oldest || h.since < oldest.since)
          if (over(h.tenant, this.stoppingOf.get(h.tenant) ?? 0)) oldest = h;
    if (!oldest) return false;
    oldest.stoppedAt = now;
    this.stoppingOf.set(oldest.tenant, (this.stoppingOf.get(oldest.tenant) ?? 0) + 1);
    oldest.abort(new DOMException(RECLAIMED, 'AbortError'));
    return true;
  }

  /**
   * The earliest time after `now` when a held call (not stopping) reaches `afterMs`, or a stopped one not wound
   * down reaches `graceMs` (stops paying): or Infinity.
   */
  nextDue(now: number, afterMs: number, graceMs: number): number {
    let due = Infinity;
    for (const h of this.calls) {
      const at = h.stoppedAt === undefined ? h.since + afterMs : h.stoppedAt + graceMs;
      if (at > now && at < due) due = at;
    }
    return due;
  }
}
