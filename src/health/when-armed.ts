import type { HealthRegistry } from './health-registry.service.js';

/**
 * Resolves once nothing is pending arming (filters built, scripts loaded…), or
 * after `timeoutMs` whatever is still pending, so that the start-up summary
 * comes after the start's own lines. Resolves with what is still pending.
 */
export async function whenArmed(
  registry: HealthRegistry,
  timeoutMs: number,
  pollMs = 50,
): Promise<string[]> {
  for (let waited = 0; ; waited += pollMs) {
    const { pending } = registry.armed();
    if (pending.length === 0 || waited >= timeoutMs || registry.draining) return pending;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
