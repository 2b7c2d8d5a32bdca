import { FairShare } from './fair-share.js';

/**
 * The cap on calls in flight to one backend. A slot is held until the
 * handler's promise has settled — not when a timer fires — so an aborted
 * call that is still winding down keeps its slot. Slots are counted per
 * tenant too (FairShare): with `fairShare`, no tenant takes more than its
 * share while others hold or wait for slots.
 */
export class Bulkhead {
  private taken = 0;
  readonly shares = new FairShare();

  /** `onChange` hears the number of slots taken after every change (for the in-flight gauge). */
  constructor(private readonly onChange: (inFlight: number) => void) {}

  get inFlight(): number {
    return this.taken;
  }

  /** True when `capacity` calls are in flight already. */
  full(capacity: number): boolean {
    return this.taken >= capacity;
  }

  /**
   * Whether `tenant` may take a slot: the bulkhead is not full and, with `fair`, the tenant is within its
   * share (a refusal marks the tenant waiting). `now` in ms.
   */
  admits(
    tenant: string,
    weight: number,
    o: { capacity: number; fair: boolean },
    now: number,
  ): boolean {
    const ok =
      this.taken < o.capacity && (!o.fair || this.shares.fair(tenant, weight, o.capacity, now));
    if (!ok) this.shares.refused(tenant, weight, now);
    return ok;
  }

  /**
   * Starts the handler and holds a slot (of `tenant`) until its promise has settled, whatever a timer says, or
   * until `released` resolves first (the backend finished its work while the handler still answers the client).
   */
  hold<T>(
    start: () => Promise<T>,
    tenant?: { id: string; weight: number; now: () => number },
    released?: Promise<void>,
  ): Promise<T> {
    this.taken++;
    if (tenant) this.shares.taken(tenant.id, tenant.weight);
    this.onChange(this.taken);
    let p: Promise<T>;
    try {
      p = Promise.resolve(start());
    } catch (err) {
      p = Promise.reject(err as Error);
    }
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.taken--;
      if (tenant) this.shares.released(tenant.id, tenant.now());
      this.onChange(this.taken);
    };
    p.then(release, release);
    void released?.then(release);
    return p;
  }
}
