import type { BucketSpec, Decision } from '../core/decision.types.js';
import { retryAfterSeconds } from '../core/rate-limit-headers.js';
import type { PacePlace, Pacer } from './pacer.js';
import type { Verdict } from './verdicts.js';

/**
 * The verdict of a decision made with a pacing place (Pacer.enter). `held`: a request that waits keeps its place
 * (the lock holds it, then gives it back), any other gives it back now. `full`: a refusal that a paced rule
 * would have held (its retry within the rule's wait) is 503 `pacing_full` rather than a 429.
 */
export function pacedVerdict(
  pacer: Pacer,
  place: PacePlace,
  v: Verdict,
  buckets: readonly BucketSpec[],
  d: Decision,
  policy: string,
  app: string,
): Verdict {
  if (place === 'held') {
    if (v.kind !== 'allowed' || v.waitMs === undefined) pacer.leave(place, app);
    return v;
  }
  if (place === 'full' && v.kind === 'limited' && d.blocker >= 0) {
    // Every enforced refusal must be one its paced rule would have held (enter() kept the rule's wait aside).
    const held = d.buckets.every(
      (o, i) =>
        o.allowed || buckets[i]!.shadow || pacer.waitOf(buckets[i]!) >= o.retryAfterMs * 1000,
    );
    if (held) {
      pacer.full(policy);
      return {
        kind: 'pacingFull',
        retryAfterS: retryAfterSeconds(d.buckets[d.blocker]!.retryAfterMs),
      };
    }
  }
  return v;
}
