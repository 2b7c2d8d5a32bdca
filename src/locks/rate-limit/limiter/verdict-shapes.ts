import type { BucketSpec, Decision } from '../core/decision.types.js';
import { isLeased, isReconciled, isSettledLater } from '../core/rule-kinds.js';
import type { CompiledPolicy } from '../rules/compile-policy.js';
import { type BucketMeta, FUSE_RULE, quotaOf } from '../rules/request-buckets.js';
import type { Verdict } from './verdict.types.js';

/** The 429 of a refused decision: the blocking rule's quota and retry. */
export function limitedVerdict(buckets: BucketSpec[], meta: BucketMeta[], d: Decision): Verdict {
  const o = d.buckets[d.blocker]!;
  // A token budget may have tokens left, only not this request's reservation: they are shown.
  const left = isReconciled(buckets[d.blocker]!) ? o.remaining : 0;
  return {
    kind: 'limited',
    quota: quotaOf(meta[d.blocker]!, { ...o, remaining: left, resetMs: o.retryAfterMs }),
    retryAfterMs: o.retryAfterMs,
    concurrency: isLeased(buckets[d.blocker]!),
    tokens: isReconciled(buckets[d.blocker]!),
    notify: d.notify === true,
  };
}

/** The verdict of an allowed decision: its paced wait, and (with headers) the tightest quota and token budget. */
export function allowedVerdict(
  policy: CompiledPolicy,
  buckets: BucketSpec[],
  meta: BucketMeta[],
  d: Decision,
): Verdict {
  const waitMs = pacedWait(buckets, d);
  if (!policy.headers) return { kind: 'allowed', degraded: d.degraded, waitMs };
  // Leases are no quota over time (a slot comes back whenever an answer ends), token budgets have headers of
  // their own: neither is in the RateLimit fields. One pass, no closure per request.
  let tight = -1;
  let tokens = -1;
  for (let i = 0; i < d.buckets.length; i++) {
    const b = buckets[i]!;
    if (b.shadow) continue;
    if (isReconciled(b)) tokens = tighter(d, tokens, i);
    if (meta[i]!.rule !== FUSE_RULE && !isSettledLater(b)) tight = tighter(d, tight, i);
  }
  return {
    kind: 'allowed',
    degraded: d.degraded,
    quota: tight < 0 ? undefined : quotaOf(meta[tight]!, d.buckets[tight]!),
    tokens: tokens < 0 ? undefined : quotaOf(meta[tokens]!, d.buckets[tokens]!),
    waitMs,
  };
}

/** The longest wait of the enforced paced buckets of an allowed decision; undefined when none waits. */
function pacedWait(buckets: BucketSpec[], d: Decision): number | undefined {
  let wait = 0;
  for (let i = 0; i < d.buckets.length; i++) {
    const w = d.buckets[i]!.waitMs ?? 0;
    if (!buckets[i]!.shadow && w > wait) wait = w;
  }
  return wait > 0 ? wait : undefined;
}

/** `tight` or bucket `i`, whichever has fewer tokens left (the longer reset on ties); -1: none yet. */
function tighter(d: Decision, tight: number, i: number): number {
  if (tight < 0) return i;
  const o = d.buckets[i]!;
  const t = d.buckets[tight]!;
  return o.remaining < t.remaining || (o.remaining === t.remaining && o.resetMs > t.resetMs)
    ? i
    : tight;
}
