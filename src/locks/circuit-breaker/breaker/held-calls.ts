/** One call holding a slot: since when (ms), and how to stop it. */
interface Held {
  tenant: string;
  since: number;
  abort: (reason: unknown) => void;
}

/** Why a reclaimed call was stopped (the product ends it as if its client had gone away). */
export const RECLAIMED = 'circuit breaker: slot reclaimed for an app within its fair share';

/**
 * The calls holding a backend's slots, per tenant, with a way to stop each: so that an app over its fair share
 * cannot keep slots for good (an endless stream, a slow reader) while an app within its share waits. Slots are
 * otherwise never taken back (FairShare); this takes back the longest-held one of an app over its share, once it
 * has been held `afterMs`, and only when asked for a waiting app (SlotDesk).
 */
export class HeldCalls {
  private readonly calls = new Set<Held>();

  get size(): number {
    return this.calls.size;
  }

  /** Registers a held call; the returned function forgets it (call it when the slot is given back). */
  add(tenant: string, since: number, abort: (reason: unknown) => void): () => void {
    const held: Held = { tenant, since, abort };
    this.calls.add(held);
    return () => void this.calls.delete(held);
  }

  /**
   * Stops the longest-held call, held at least `afterMs` at `now`, of a tenant for which `over` is true; true
   * when one was stopped (its slot frees once the call has wound down).
   */
  reclaim(now: number, afterMs: number, over: (tenant: string) => boolean): boolean {
    let oldest: Held | undefined;
    for (const h of this.calls)
      if (now - h.since >= afterMs && (!oldest || h.since < oldest.since) && over(h.tenant))
        oldest = h;
    if (!oldest) return false;
    this.calls.delete(oldest);
    oldest.abort(new DOMException(RECLAIMED, 'AbortError'));
    return true;
  }
}
