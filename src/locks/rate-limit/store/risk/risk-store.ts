import type {
  ObserveParams,
  RiskObservation,
  RiskSignal,
  RiskState,
} from '../../core/risk.types.js';

/** A subject's record as the admin API shows it (times epoch µs). */
export interface RiskRecordView extends RiskState {
  signals: Partial<Record<RiskSignal, { count: number; lastUs: number }>>;
}

/**
 * The risk records behind the rate-limit lock's scores: observations go in
 * batches (off the hot path), the decision script reads the records itself.
 * Redis (lua/ratelimit_risk_observe.lua) and memory stores pass one table
 * (test/support/risk-scenarios.ts).
 */
export interface RiskStore {
  /** Applies a batch of observations; resolves with the number of signals raised. */
  observe(batch: readonly RiskObservation[], p: ObserveParams): Promise<number>;
  /** The record of `key`, or undefined when the subject has none. */
  read(key: string): Promise<RiskRecordView | undefined>;
  /**
   * The KEYS and ARGV of a batch as the instance heartbeat's observation block takes them (Redis store only):
   * absent, the batch cannot ride on the heartbeat and is written by `observe`.
   */
  batchArgs?(
    batch: readonly RiskObservation[],
    p: ObserveParams,
  ): { keys: string[]; args: (string | number)[] };
  /** Deletes the record (the subject starts new); true when there was one. */
  reset(key: string): Promise<boolean>;
}

/** Injection token of the service's RiskStore (Redis when configured, else memory). */
export const RISK_STORE = Symbol('RISK_STORE');
