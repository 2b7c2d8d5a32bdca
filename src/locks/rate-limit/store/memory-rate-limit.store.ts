import type { Stored } from '../core/rule-kind.types.js';
import { BucketState, Write, decideBuckets } from '../core/bucket-math.js';
import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import { Clock, systemClock } from '../../../common/clock.js';
import { MemoryRiskRecords } from './risk/memory-risk-records.js';
import type { Lease, RateLimitStore, Settlement } from './rate-limit.store.js';
import { withoutLease } from '../core/kinds/concurrency.js';
import { settledWindow } from '../core/kinds/tokens.js';
import type { Decision, DecideRequest } from '../core/decision.types.js';
import { MEMORY_ENTRIES } from '../core/memory-caps.js';
import type { UsageWrite } from '../core/usage-keys.js';
import { MemoryUsage } from './memory-usage.js';
import { MemoryEntries } from './memory-entries.js';
import { heldClaim, keepCharge, markTold, takeClaim } from './memory-marks.js';

/**
 * The rate-limit algorithm in process memory: the store of a service without
 * Redis, and the fallback of failMode `local`. Same decisions as the Lua
 * script; every entry expires like its Redis key would.
 *
 * Bounded (docs/rate-limit.md#memory-bounds): a key expires once its bucket is
 * full again, so an expired key is one whose loss changes nothing; a full store
 * drops those first. It never drops a live one (a bucket that has not refilled,
 * an unexpired claim): a decision that needs new keys when none is free throws
 * MemoryStoreFullError, before charging anything, and the limiter answers 503.
 * Subjects already held are decided as usual. A new rule kind's keys (e.g.
 * concurrency leases) are entries here too: counted by `newKeys` through its
 * bucket key, capped with the rest, and never dropped while live.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly entries: MemoryEntries;
  /** Usage buckets (docs/quotas.md#usage-and-spend), bounded on their own. */
  readonly usage: MemoryUsage;

  constructor(
    private readonly clock: Clock = systemClock,
    /** The subjects' risk records (shared with the memory risk store, which records signals in them). */
    readonly risk: MemoryRiskRecords = new MemoryRiskRecords(),
    maxEntries = MEMORY_ENTRIES,
  ) {
    this.entries = new MemoryEntries(maxEntries);
    this.usage = new MemoryUsage(clock);
  }

  decide(req: DecideRequest): Promise<Decision> {
    try {
      return Promise.resolve(this.decideSync(req));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /** Gives a request's leases back (concurrency): each key keeps its other live leases. */
  release(lease: Lease): Promise<void> {
    for (const { key } of lease.keys) {
      const held = this.entries.held(key);
      if (held === undefined) continue;
      const rest = withoutLease(held, lease.id);
      if (rest === undefined) this.entries.delete(key);
      else this.entries.set(key, rest, this.entries.expiresAt(key)!, this.clock.now());
    }
    return Promise.resolve();
  }

  /** Settles token reservations: the window they went to keeps its expiry; an ended window is left alone. */
  settle(items: readonly Settlement[], usage?: readonly UsageWrite[]): Promise<void> {
    const nowMs = this.clock.now();
    if (usage) this.usage.write(usage);
    for (const it of items) {
      const held = this.entries.peek(it.key, nowMs);
      if (held === undefined) continue;
      const w = settledWindow(held, it.untilUs, it.reserved, it.used);
      if (w) this.entries.replace(it.key, w, nowMs);
    }
    return Promise.resolve();
  }

  readUsage(keys: readonly string[]): Promise<Record<string, string>[]> {
    return Promise.resolve(this.usage.read(keys));
  }

  /** Drops one key (a claim given back: see RateLimitClaims.release). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /** A live claim given back with its charge kept: its next copy re-enters uncharged (as the script's 'c'). */
  keepCharge(key: string): void {
    keepCharge(this.entries, key, this.clock.now());
  }

  decideSync(req: DecideRequest): Decision {
    const nowMs = this.clock.now();
    const read = (key: string): Stored | undefined => this.entries.read(key, nowMs);
    const claimed = heldClaim(this.entries, req.claim, nowMs);
    if (claimed) return claimed;
    // Room for every key this call may create, or nothing is written (all or none, as the script).
    if (!this.entries.room(this.newKeys(req, read), nowMs))
      throw new MemoryStoreFullError('rate_limit', this.entries.maxEntries);
    takeClaim(this.entries, req.claim, nowMs);
    const state: BucketState[] = req.buckets.map((b) => ({
      value: read(b.key),
      penaltyTat: b.penaltyKey ? (read(b.penaltyKey) as number | undefined) : undefined,
    }));
    const writes: Write[] = [];
    const riskStates = req.risk ? req.risk.keys.map((k) => this.risk.get(k, nowMs)) : [];
    const decision = decideBuckets(req, state, nowMs * 1000, writes, riskStates);
    if (req.risk) this.risk.seen(req.risk.keys, riskStates, nowMs, req.risk.params);
    for (const w of writes) this.entries.set(w.key, w.value, nowMs + w.ttlMs, nowMs);
    markTold(this.entries, req, decision, nowMs);
    // A full sweep once the writes since the last one reach a quarter of the store: O(1) per write.
    if (this.entries.wrote(writes.length)) this.sweep(nowMs);
    return decision;
  }

  /** Keys the call may create: the claim, and each bucket's and penalty's key that is absent. */
  private newKeys(req: DecideRequest, read: (key: string) => Stored | undefined): number {
    let n = req.claim ? 1 : 0;
    for (const b of req.buckets) {
      if (read(b.key) === undefined) n += 1;
      if (b.penaltyKey !== undefined && read(b.penaltyKey) === undefined) n += 1;
    }
    return n;
  }

  /** The live value of a key, without deciding (the load level reads the global buckets). */
  peek(key: string): Stored | undefined {
    return this.entries.peek(key, this.clock.now());
  }

  /** Milliseconds to live of a key: -2 when absent or expired (as Redis PTTL). */
  ttl(key: string): number {
    return this.entries.ttl(key, this.clock.now());
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops every expired entry (amortised over writes, so memory stays bounded by live buckets). */
  sweep(nowMs = this.clock.now()): void {
    this.risk.sweep(nowMs);
    this.entries.sweep(nowMs);
  }

  clear(): void {
    this.entries.clear();
  }
}
