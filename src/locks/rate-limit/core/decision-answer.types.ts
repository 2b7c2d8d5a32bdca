/**
 * The answer side of the decision model (decision.types.ts holds the question): each bucket's outcome, the
 * decision, and the decisions of a request whose claim said "nothing to decide".
 */

export interface BucketOutcome {
  allowed: boolean;
  /** Whole tokens left after this request (or now, when refused). */
  remaining: number;
  /**
   * Refused: milliseconds until this request's cost fits. Allowed: milliseconds (floored) until a NEXT
   * request of the same cost would fit — 0 when it would now (feeds the local deny cache at the limit edge).
   */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
  /** Capacity in force for this request (after degrade and penalty), whole tokens. */
  limit: number;
  /** What was charged, to refund it (µs of TAT for `g`, tokens for `t`, `f` and `k`); 0 when nothing was. */
  charged: number;
  /** Reconciled kinds (token budgets), charged: the end of the window the reservation went to, epoch µs. */
  untilUs?: number;
  /** Paced kinds, allowed: milliseconds (rounded up) this request waits for its reserved slot; 0 or absent: none. */
  waitMs?: number;
}

export interface Decision {
  /** True when no enforced bucket refused (every bucket that fits was charged, or none was). */
  allowed: boolean;
  /** Index of the enforced bucket with the longest retry among those that refused; -1 when allowed. */
  blocker: number;
  degraded: boolean;
  /** The clock the decision used (Redis TIME, or the app's), epoch milliseconds. */
  nowMs: number;
  buckets: BucketOutcome[];
  /** The claim was taken already: nothing was decided or charged (`buckets` is empty). */
  duplicate?: boolean;
  /**
   * The claim had been given back with its charge kept (an earlier copy of this request was charged and
   * not finished): taken again, allowed, nothing decided or charged a second time (`buckets` is empty).
   */
  reentered?: boolean;
  /** Refused with `told` keys: true when the blocker's told key was set by this call (first refusal in its window). */
  notify?: boolean;
  /** With `risk`: the request's score (worst subject less bonus) and the multiplier it gave. */
  risk?: { score: number; multiplier: number };
}

/** The decision of a duplicate: nothing decided, nothing charged. */
export function duplicateDecision(nowMs: number): Decision {
  return { allowed: true, blocker: -1, degraded: false, nowMs, buckets: [], duplicate: true };
}

/** The decision of a request whose claim kept an earlier copy's charge: allowed, nothing charged again. */
export function reenteredDecision(nowMs: number): Decision {
  return { allowed: true, blocker: -1, degraded: false, nowMs, buckets: [], reentered: true };
}

/** Nothing was decided: a duplicate, or a re-entry on a kept charge (`buckets` is empty). */
export function undecided(d: Decision): boolean {
  return d.duplicate === true || d.reentered === true;
}
