import type { BreakerMetrics } from '../circuit-breaker.metrics.js';
import type { Admission, BreakerOptions, QueueRefusal } from '../circuit-breaker.types.js';
import type { BackendPlan } from './backend-plans.js';
import type { Ticket } from './breaker-call.js';
import type { BreakerParts } from './breaker-parts.js';
import type { Holder } from './slot-desk.js';
import type { Tenant } from './tenant.js';

/** The gate's answer for one call of a BackendBreaker, counted and metered; refusals are final. */
export function gateAdmission(
  p: BreakerParts,
  plan: BackendPlan,
  metrics: BreakerMetrics,
): Admission {
  p.controls.sync(plan.forces);
  const a = p.gate.admit();
  if (p.gate.phase === 'recovering') metrics.admittedShare(plan.backend, p.gate.admittedShare());
  if (!a.admit) p.ledger.refused();
  return a;
}

/** Refused for a full bulkhead: Retry-After 1 s, or `maxWaitMs` when the wait queue refused (it drains by then). */
export function busyRefusal(
  p: BreakerParts,
  options: BreakerOptions,
  a: Ticket,
  queue?: QueueRefusal,
): Admission {
  if (a.probe) p.gate.probeDone(a.probe.epoch, 'neutral');
  p.ledger.refused();
  if (!queue) return { admit: false, reason: 'busy', retryAfterMs: 1_000 };
  const retryAfterMs = Math.max(1_000, options.maxWaitMs);
  return { admit: false, reason: 'busy', retryAfterMs, queue };
}

/** Who holds a slot: the calling app, weighted by its tier's share of the bulkhead. */
export function holderOf(tenant: Tenant, options: BreakerOptions): Holder {
  return { id: tenant.id, weight: options.shareWeights[tenant.tier ?? ''] ?? 1 };
}
