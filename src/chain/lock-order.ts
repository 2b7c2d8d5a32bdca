/**
 * THE order of the locks — declared here and nowhere else.
 *
 * Cheap checks first: identity (signature), then frequency (rate limit),
 * then the cache, and only then the backend (circuit breaker). Nest runs
 * guards before interceptors, so the two guard-stage locks come first; the
 * chain asserts at boot that this list respects that.
 */
export const LOCK_ORDER = [
  { name: 'signature', stage: 'guard' },
  { name: 'rateLimit', stage: 'guard' },
  { name: 'cacheShield', stage: 'interceptor' },
  { name: 'circuitBreaker', stage: 'interceptor' },
] as const;

export type LockName = (typeof LOCK_ORDER)[number]['name'];
export type LockStage = (typeof LOCK_ORDER)[number]['stage'];

export const LOCK_NAMES: readonly LockName[] = LOCK_ORDER.map((l) => l.name);

export function isLockName(name: string): name is LockName {
  return (LOCK_NAMES as readonly string[]).includes(name);
}
