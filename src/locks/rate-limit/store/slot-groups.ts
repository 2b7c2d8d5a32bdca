/**
 * The slots of a multi-slot request (cross-slot.ts): bucket indexes grouped by hash tag, the request one slot
 * decides, and the slots' decisions merged back into one.
 */
import type { BucketOutcome, BucketSpec, Decision, DecideRequest } from '../core/decision.types.js';

/** Bucket indexes grouped by hash tag (the part in braces), in first-seen order. */
export function groupBy(buckets: BucketSpec[]): number[][] {
  const byTag = new Map<string, number[]>();
  buckets.forEach((b, i) => {
    const list = byTag.get(b.group);
    if (list) list.push(i);
    else byTag.set(b.group, [i]);
  });
  return [...byTag.values()];
}

/** Hash tag of a claim key (`rl:{<env>:<service>}:claim:…`, or a nonce `nonce:{<env>:<service>}:…`). */
export function claimGroup(key: string): string {
  return key.slice(key.indexOf('{'), key.indexOf('}') + 1);
}

/** The buckets `idx` of one slot as a request of their own (`claim`: with the claim). */
export function slotRequest(req: DecideRequest, idx: number[], claim: boolean): DecideRequest {
  if (idx.length === req.buckets.length && (claim || !req.claim)) return req;
  return {
    ...req,
    buckets: idx.map((i) => req.buckets[i]!),
    told: req.told && idx.map((i) => req.told![i]!),
    claim: claim ? req.claim : undefined,
    // Risk records live in the service's slot: only that slot's buckets are scaled by them.
    risk:
      req.risk && req.buckets[idx[0]!]?.group === claimGroup(req.risk.keys[0] ?? '')
        ? req.risk
        : undefined,
  };
}

/** The slots' decisions as one: each bucket's outcome in the request's order, allowed by all, degraded by any. */
export function mergeSlots(
  n: number,
  groups: number[][],
  parts: Decision[],
): Pick<Decision, 'allowed' | 'degraded' | 'nowMs' | 'buckets'> {
  const buckets: BucketOutcome[] = new Array(n);
  let allowed = true;
  let degraded = false;
  parts.forEach((d, g) => {
    groups[g]!.forEach((bi, j) => (buckets[bi] = d.buckets[j]!));
    allowed &&= d.allowed;
    degraded ||= d.degraded;
  });
  return { allowed, degraded, nowMs: Math.max(...parts.map((p) => p.nowMs)), buckets };
}

/** The overall blocker of a refused request: the enforced refusing bucket with the longest retry. */
export function overallBlocker(req: DecideRequest, buckets: BucketOutcome[]): number {
  let blocker = -1;
  buckets.forEach((o, i) => {
    if (
      !o.allowed &&
      !req.buckets[i]!.shadow &&
      (blocker < 0 || o.retryAfterMs > buckets[blocker]!.retryAfterMs)
    )
      blocker = i;
  });
  return blocker;
}
