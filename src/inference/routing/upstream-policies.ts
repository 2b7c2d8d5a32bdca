import { isRecord } from '../../common/is-record.js';
import type { LockSlice, RoutePolicy } from '../../config/policy.types.js';
import { BREAKER_OPTION_KEYS } from '../../locks/circuit-breaker/circuit-breaker.types.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from './model-routes.settings.js';
import { upstreamBackend } from './model-routes.types.js';

/**
 * One policy per upstream of `inference.models` (docs/inference.md#upstreams-per-model),
 * `inference-upstream-<name>`, where CONFIG_FILE does not define it: every lock off but the
 * circuit breaker, whose backend `inference-upstream-<name>` is that upstream's own breaker
 * and bulkhead. Options come from the `inference` policy's breaker, with the upstream's
 * `timeoutMs` and `capacity`. No route uses these policies: the model router runs each
 * attempt through the breaker; the admin API forces, resets and tunes them like any other.
 */
export function withUpstreamPolicies(
  policies: Record<string, RoutePolicy>,
  inferenceSection: unknown,
): Record<string, RoutePolicy> {
  const models = isRecord(inferenceSection) ? inferenceSection.models : undefined;
  if (!isRecord(models)) return policies;
  const base = policies.inference?.locks.circuitBreaker ?? { mode: 'off' };
  const options: Record<string, unknown> = {};
  for (const k of BREAKER_OPTION_KEYS)
    if (base[k] !== undefined) options[k] = structuredClone(base[k]);
  const out = { ...policies };
  for (const model of Object.values(models)) {
    const ups = isRecord(model) && Array.isArray(model.upstreams) ? model.upstreams : [];
    for (const u of ups as unknown[]) {
      if (!isRecord(u) || typeof u.name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,31}$/.test(u.name))
        continue; // reported by modelRoutes() at boot
      const name = upstreamBackend(u.name);
      if (out[name]) continue;
      const cb: LockSlice = {
        mode: 'enforce',
        ...options,
        backend: name,
        stale: false,
        timeoutMs: Number.isInteger(u.timeoutMs) ? u.timeoutMs : DEFAULT_ATTEMPT_TIMEOUT_MS,
      };
      if (Number.isInteger(u.capacity)) cb.capacity = u.capacity;
      out[name] = {
        description: `Inference upstream ${u.name}: its breaker and bulkhead (derived from inference.models; no route)`,
        locks: {
          signature: { mode: 'off' },
          rateLimit: { mode: 'off' },
          cacheShield: { mode: 'off' },
          circuitBreaker: cb,
        },
      };
    }
  }
  return out;
}
