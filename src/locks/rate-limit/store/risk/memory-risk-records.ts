import { BoundedMap } from '../../../../common/bounded-map.js';
import { RISK_RECORDS } from '../../core/memory-caps.js';
import { recordTtlMs, touched } from '../../core/risk-math.js';
import type { RiskParams, RiskSignal, RiskState } from '../../core/risk.types.js';

type Signals = Partial<Record<RiskSignal, { count: number; lastUs: number }>>;

/**
 * One subject's record in memory: the decision's fields plus the signal counts, as the Redis hash
 * holds them. A class with fixed fields, the signal counts made only at the first signal: most
 * records never get one (about 205 bytes a record, its key apart).
 */
export class RiskRecord implements RiskState {
  /** Signals recorded since the record was created, and when each was last seen (epoch µs). */
  signals: Signals | undefined = undefined;
  /** Epoch µs of the last signal (the address window of verified requests: docs/quotas.md). */
  r: number | undefined = undefined;

  constructor(
    public s: number | undefined,
    public f: number | undefined,
    public t: number | undefined,
    /** Epoch ms when the record expires. */
    public expiresAt: number,
  ) {}
}

/**
 * The risk records of a service without Redis (and of failMode `local`): read
 * and touched by the memory rate-limit store's decisions, raised by the memory
 * risk store's signals. Every record expires like its Redis hash would.
 *
 * Bounded (docs/quotas.md#memory-bounds). Full, a new record takes the place of an expired one,
 * else of the least recently written record without a live score: its subject is judged as new
 * again (a stricter quota, never a looser one). Full of scored records, a subject seen for the
 * first time gets no record (it stays new: stricter), and a signal takes the place of the least
 * recently written record (the newest misbehaviour is kept; the one forgiven is the quietest).
 */
export class MemoryRiskRecords {
  private readonly records: BoundedMap<string, RiskRecord>;

  constructor(maxRecords = RISK_RECORDS) {
    this.records = new BoundedMap({
      store: 'risk_records',
      maxEntries: maxRecords,
      whenFull: 'refuse',
      expired: (r, now) => r.expiresAt <= now,
      evictable: (r, now) => r.expiresAt <= now || r.s === undefined || r.s <= now * 1000,
    });
  }

  get size(): number {
    return this.records.size;
  }

  /** The live record of `key`, or undefined. */
  get(key: string, nowMs: number): RiskRecord | undefined {
    const r = this.records.get(key);
    if (r === undefined) return undefined;
    if (r.expiresAt <= nowMs) {
      this.records.delete(key);
      return undefined;
    }
    return r;
  }

  /** After a decision: creates the records seen for the first time, refreshes those due (as the script does). */
  seen(
    keys: readonly string[],
    states: readonly (RiskState | undefined)[],
    nowMs: number,
    p: RiskParams,
  ): void {
    const now = nowMs * 1000;
    keys.forEach((key, i) => {
      const t = touched(states[i], now, p);
      if (t === undefined) return;
      const r = this.get(key, nowMs);
      if (r === undefined) {
        const expiresAt = nowMs + recordTtlMs(t.f, now, p);
        this.records.set(key, new RiskRecord(t.s, t.f, t.t, expiresAt), nowMs);
        return;
      }
      r.f = t.f;
      r.t = t.t;
      r.expiresAt = nowMs + recordTtlMs(t.f, now, p);
      this.records.set(key, r, nowMs);
    });
  }

  /**
   * The record to change (created when absent, in the place of another when full), living from now its TTL by
   * age (risk-math.ts `recordTtlMs`: hours while young, `ttlMs` once a reputation period old).
   */
  upsert(key: string, nowMs: number, p: Parameters<typeof recordTtlMs>[2]): RiskRecord {
    const now = nowMs * 1000;
    let r = this.get(key, nowMs);
    if (r === undefined) r = new RiskRecord(undefined, now, now, 0);
    r.expiresAt = nowMs + recordTtlMs(r.f, now, p);
    this.records.set(key, r, nowMs, 'evict-oldest');
    return r;
  }

  delete(key: string): boolean {
    return this.records.delete(key);
  }

  /** Drops every expired record. */
  sweep(nowMs: number): void {
    this.records.sweep(nowMs);
  }
}
