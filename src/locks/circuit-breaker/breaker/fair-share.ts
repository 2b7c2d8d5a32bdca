/** How long a refused tenant counts as waiting for a slot, and a served one as active (it asked and will ask again). */
export const WAITING_MS = 5_000;
/** Most tenants tracked at once; past it, the longest-idle waiting ones are forgotten (held slots never are). */
export const MAX_TENANTS = 10_000;

interface Tenant {
  held: number;
  weight: number;
  /** Last refusal (ms), or -Infinity: the tenant waits while this is younger than WAITING_MS. */
  refusedAt: number;
  /** Last slot given back (ms), or -Infinity: the tenant is active while this is younger than WAITING_MS. */
  releasedAt: number;
}

/**
 * Who holds a backend's bulkhead slots, per tenant (the app), and whether one more is fair: a tenant alone
 * may use every idle slot; while other tenants hold slots, wait for one or were served within WAITING_MS, it
 * gets at most its share, capacity × its weight ÷ the weights of every such tenant (and itself). Slots are
 * never taken back: a tenant above its share gets no new one until it falls below. Counting the recently
 * served matters for calls that hold long (endless streams): many apps with short calls hold few slots at any
 * instant, and one app would otherwise take every idle slot between them and keep it.
 */
export class FairShare {
  private readonly tenants = new Map<string, Tenant>();

  get size(): number {
    return this.tenants.size;
  }

  /** Slots `tenant` holds now. */
  held(tenant: string): number {
    return this.tenants.get(tenant)?.held ?? 0;
  }

  /** True when `tenant` may take one more of `capacity` slots now (the bulkhead is not full). */
  fair(tenant: string, weight: number, capacity: number, now: number): boolean {
    const own = this.tenants.get(tenant);
    let weights = weight;
    let others = false;
    for (const [id, t] of this.tenants) {
      if (id === tenant) continue;
      if (!active(t, now)) {
        this.tenants.delete(id); // neither holding, waiting nor recently served: forgotten (safe while iterating)
        continue;
      }
      others = true;
      weights += t.weight;
    }
    if (!others) return true;
    return (own?.held ?? 0) < Math.max(1, Math.floor((capacity * weight) / weights));
  }

  /**
   * True when `tenant` holds more than its share of `capacity` slots while other tenants are active, not counting
   * `leaving` of its slots (calls stopped, still winding down).
   */
  over(tenant: string, capacity: number, now: number, leaving = 0): boolean {
    const own = this.tenants.get(tenant);
    const held = (own?.held ?? 0) - leaving;
    if (!own || held <= 1) return false;
    let weights = own.weight;
    for (const [id, t] of this.tenants) if (id !== tenant && active(t, now)) weights += t.weight;
    if (weights === own.weight) return false;
    return held > Math.max(1, Math.floor((capacity * own.weight) / weights));
  }

  /** `tenant` was refused a slot: it waits, and its share is kept for it for WAITING_MS. */
  refused(tenant: string, weight: number, now: number): void {
    const t = this.entry(tenant, weight);
    t.refusedAt = now;
  }

  taken(tenant: string, weight: number): void {
    this.entry(tenant, weight).held++;
  }

  released(tenant: string, now: number): void {
    const t = this.tenants.get(tenant);
    if (!t) return;
    t.held--;
    t.releasedAt = now;
  }

  private entry(tenant: string, weight: number): Tenant {
    let t = this.tenants.get(tenant);
    if (!t) {
      if (this.tenants.size >= MAX_TENANTS) this.forgetIdle();
      this.tenants.set(
        tenant,
        (t = { held: 0, weight, refusedAt: -Infinity, releasedAt: -Infinity }),
      );
    }
    t.weight = weight;
    return t;
  }

  /** Drops every tenant that holds nothing (waiting ones too: the bound beats a few seconds of fairness). */
  private forgetIdle(): void {
    for (const [id, t] of this.tenants) if (t.held <= 0) this.tenants.delete(id);
  }
}

/** Counts in the shares: holds a slot, waits for one, or was served within WAITING_MS. */
function active(t: Tenant, now: number): boolean {
  return t.held > 0 || now - t.refusedAt < WAITING_MS || now - t.releasedAt < WAITING_MS;
}
