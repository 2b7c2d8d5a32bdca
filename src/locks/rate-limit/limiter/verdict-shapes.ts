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
  // their own: neither is in the RateLimit fields.
  const tight = tightest(
    d,
    (i) => !(buckets[i]!.shadow || meta[i]!.rule === FUSE_RULE || isSettledLater(buckets[i]!)),
  );
  const tokens = tightest(d, (i) => isReconciled(buckets[i]!) && !buckets[i]!.shadow);
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
  d.buckets.forEach((o, i) => {
    if (!buckets[i]!.shadow && (o.waitMs ?? 0) > wait) wait = o.waitMs!;
  });
  return wait > 0 ? wait : undefined;
}

/** The enforced bucket with the fewest tokens left (the longest reset on ties) among those `pick` keeps; -1: none. */
function tightest(d: Decision, pick: (i: number) => boolean): number {
  let tight = -1;
  d.buckets.forEach((o, i) => {
    if (!pick(i)) return;
    const t = tight < 0 ? undefined : d.buckets[tight]!;
    if (!t || o.remaining < t.remaining || (o.remaining === t.remaining && o.resetMs > t.resetMs))
      tight = i;
  });
  return tight;
}
