import type { Stored } from '../core/rule-kind.types.js';
import { BucketState, Write, decideBuckets } from '../core/bucket-math.js';
import { Clock, systemClock } from '../../../common/clock.js';
import { MemoryRiskRecords } from './risk/memory-risk-records.js';
import type { Lease, RateLimitStore } from './rate-limit.store.js';
import { withoutLease } from '../core/kinds/concurrency.js';
import {
  Decision,
  DecideRequest,
  TTL_MARGIN_MS,
  duplicateDecision,
} from '../core/decision.types.js';
import { bucketTtlMs } from '../core/rule-kinds.js';

interface Entry {
  value: Stored;
  /** Epoch ms when the entry expires (every entry has one). */
  expiresAt: number;
}

const SWEEP_EVERY = 4_096;

/**
 * The rate-limit algorithm in process memory: the store of a service without
 * Redis, and the fallback of failMode `local`. Same decisions as the Lua
 * script; every entry expires like its Redis key would.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private writesSinceSweep = 0;

  constructor(
    private readonly clock: Clock = systemClock,
    /** The subjects' risk records (shared with the memory risk store, which records signals in them). */
    readonly risk: MemoryRiskRecords = new MemoryRiskRecords(),
  ) {}

  decide(req: DecideRequest): Promise<Decision> {
    return Promise.resolve(this.decideSync(req));
  }

  /** Gives a request's leases back (concurrency): each key keeps its other live leases. */
  release(lease: Lease): Promise<void> {
    for (const { key } of lease.keys) {
      const e = this.entries.get(key);
      if (e === undefined) continue;
      const rest = withoutLease(e.value, lease.id);
      if (rest === undefined) this.entries.delete(key);
      else e.value = rest;
    }
    return Promise.resolve();
  }

  /** Drops one key (a claim given back: see RateLimitClaims.release). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  decideSync(req: DecideRequest): Decision {
    const nowMs = this.clock.now();
    const read = (key: string): Stored | undefined => {
      const e = this.entries.get(key);
      if (e === undefined) return undefined;
      if (e.expiresAt <= nowMs) {
        this.entries.delete(key);
        return undefined;
      }
      return e.value;
    };
    // The claim first, as the script does: a duplicate decides and charges nothing.
    if (req.claim) {
      if (read(req.claim.key) !== undefined) return duplicateDecision(nowMs);
      this.entries.set(req.claim.key, { value: 1, expiresAt: nowMs + req.claim.ttlMs });
    }
    const state: BucketState[] = req.buckets.map((b) => ({
      value: read(b.key),
      penaltyTat: b.penaltyKey ? (read(b.penaltyKey) as number | undefined) : undefined,
    }));
    const writes: Write[] = [];
    const riskStates = req.risk ? req.risk.keys.map((k) => this.risk.get(k, nowMs)) : [];
    const decision = decideBuckets(req, state, nowMs * 1000, writes, riskStates);
    if (req.risk) this.risk.seen(req.risk.keys, riskStates, nowMs, req.risk.params);
    for (const w of writes) this.entries.set(w.key, { value: w.value, expiresAt: nowMs + w.ttlMs });
    if (!decision.allowed && req.told) {
      // Told once per window: the blocker's told key lives max(retry-after, its window), as in the scripts.
      const key = req.told[decision.blocker]!;
      decision.notify = read(key) === undefined;
      const window = bucketTtlMs(req.buckets[decision.blocker]!) - TTL_MARGIN_MS;
      const ttl = Math.max(1, decision.buckets[decision.blocker]!.retryAfterMs, window);
      if (decision.notify) this.entries.set(key, { value: 1, expiresAt: nowMs + ttl });
    }
    this.writesSinceSweep += writes.length;
    if (this.writesSinceSweep >= SWEEP_EVERY) this.sweep(nowMs);
    return decision;
  }

  /** The live value of a key, without deciding (the load level reads the global buckets). */
  peek(key: string): Stored | undefined {
    const e = this.entries.get(key);
    return e === undefined || e.expiresAt <= this.clock.now() ? undefined : e.value;
  }

  /** Milliseconds to live of a key: -2 when absent or expired (as Redis PTTL). */
  ttl(key: string): number {
    const e = this.entries.get(key);
    const now = this.clock.now();
    return e === undefined || e.expiresAt <= now ? -2 : Math.ceil(e.expiresAt - now);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops every expired entry (amortised over writes, so memory stays bounded by live buckets). */
  sweep(nowMs = this.clock.now()): void {
    this.writesSinceSweep = 0;
    this.risk.sweep(nowMs);
    for (const [k, e] of this.entries) if (e.expiresAt <= nowMs) this.entries.delete(k);
  }

  clear(): void {
    this.entries.clear();
  }
}
