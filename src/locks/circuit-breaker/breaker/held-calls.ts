/** One call holding a slot: since when (ms), how to stop it, and whether it was stopped (winding down). */
interface Held {
  tenant: string;
  since: number;
  abort: (reason: unknown) => void;
  stopping: boolean;
}

/** Why a reclaimed call was stopped (the product ends it as if its client had gone away). */
export const RECLAIMED = 'circuit breaker: slot reclaimed for an app within its fair share';

/**
 * The calls holding a backend's slots, per tenant, with a way to stop each: so that an app over its fair share
 * cannot keep slots for good (an endless stream, a slow reader) while an app within its share waits. Slots are
 * otherwise never taken back (FairShare); this takes back the longest-held one of an app over its share, once it
 * has been held `afterMs`, and only when asked for a waiting app (SlotReclaim). A stopped call stays counted as
 * stopping until its slot is given back, so that two asks in a row do not take its tenant below its share.
 */
export class HeldCalls {
  private readonly calls = new Set<Held>();
  /** Stopped calls not wound down yet, per tenant (bounded by the held calls). */
  private readonly stoppingOf = new Map<string, number>();
  private stoppingAll = 0;

  get size(): number {
    return this.calls.size;
  }

  /** Calls stopped whose slot has not been given back yet. */
  get stopping(): number {
    return this.stoppingAll;
  }

  /** Registers a held call; the returned function forgets it (call it when the slot is given back). */
  add(tenant: string, since: number, abort: (reason: unknown) => void): () => void {
    const held: Held = { tenant, since, abort, stopping: false };
    this.calls.add(held);
    return () => {
      if (!this.calls.delete(held) || !held.stopping) return;
      this.stoppingAll--;
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
      if (!h.stopping && now - h.since >= afterMs && (!oldest || h.since < oldest.since))
        if (over(h.tenant, this.stoppingOf.get(h.tenant) ?? 0)) oldest = h;
    if (!oldest) return false;
    oldest.stopping = true;
    this.stoppingAll++;
    this.stoppingOf.set(oldest.tenant, (this.stoppingOf.get(oldest.tenant) ?? 0) + 1);
    oldest.abort(new DOMException(RECLAIMED, 'AbortError'));
    return true;
  }

  /** When the next held call (not stopping) reaches `afterMs` after `now`: the earliest such time, or Infinity. */
  nextDue(now: number, afterMs: number): number {
    let due = Infinity;
    for (const h of this.calls) {
      const at = h.since + afterMs;
      if (!h.stopping && at > now && at < due) due = at;
    }
    return due;
  }
}
