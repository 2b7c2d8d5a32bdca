import { touched } from '../../core/risk-math.js';
import type { RiskParams, RiskSignal, RiskState } from '../../core/risk.types.js';

/** One subject's record in memory: the decision's fields plus the signal counts, as the Redis hash holds them. */
export interface RiskRecord extends RiskState {
  /** Signals recorded since the record was created, and when each was last seen (epoch µs). */
  signals: Partial<Record<RiskSignal, { count: number; lastUs: number }>>;
  /** Epoch ms when the record expires. */
  expiresAt: number;
}

/**
 * The risk records of a service without Redis (and of failMode `local`): read
 * and touched by the memory rate-limit store's decisions, raised by the memory
 * risk store's signals. Every record expires like its Redis hash would.
 */
export class MemoryRiskRecords {
  private readonly records = new Map<string, RiskRecord>();

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
      const r = this.get(key, nowMs) ?? { signals: {}, expiresAt: 0 };
      this.records.set(key, { ...r, ...t, expiresAt: nowMs + p.ttlMs });
    });
  }

  /** The record to change (created when absent), living `ttlMs` from now. */
  upsert(key: string, nowMs: number, ttlMs: number): RiskRecord {
    let r = this.get(key, nowMs);
    if (r === undefined) {
      const now = nowMs * 1000;
      this.records.set(key, (r = { f: now, t: now, signals: {}, expiresAt: 0 }));
    }
    r.expiresAt = nowMs + ttlMs;
    return r;
  }

  delete(key: string): boolean {
    return this.records.delete(key);
  }

  /** Drops every expired record. */
  sweep(nowMs: number): void {
    for (const [k, r] of this.records) if (r.expiresAt <= nowMs) this.records.delete(k);
  }
}
