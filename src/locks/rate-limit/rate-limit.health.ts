import type { ReadinessCheck } from '../../health/health-registry.service.js';
import type { RedisService } from '../../redis/redis.service.js';
import type { LoadMonitor } from './load/load-monitor.service.js';
import type { RateLimitPeers } from './store/lanes/rate-limit-peers.service.js';

/**
 * The lock's store, for `/health` (an optional check): with Redis down the service stays ready (policies apply
 * their failMode) but shows degraded.
 */
export function storeHealth(redis: RedisService, peers: RateLimitPeers): ReadinessCheck {
  return async () => {
    if (redis.enabled && !redis.ready)
      throw new Error('redis unavailable: policies decide by their failMode');
    return {
      store: redis.enabled ? 'redis' : 'memory',
      liveInstances: peers.liveInstances,
      keySecret: peers.sharedSecret ? 'ready' : 'pending',
    };
  };
}

/**
 * The service-wide load level (docs/quotas.md), for `/health` (an optional check): at hard the instance stays
 * ready (critical routes are served) but shows degraded.
 */
export function loadHealth(load: LoadMonitor): ReadinessCheck {
  return () => {
    const v = load.view();
    const details = {
      level: v.level,
      fill: v.fill,
      reason: v.reason,
      actions: Object.fromEntries(v.policies.map((p) => [p.policy, p.action])),
    };
    if (v.level === 'hard')
      throw new Error(`load level hard: non-critical routes shed (${JSON.stringify(details)})`);
    return Promise.resolve(details);
  };
}
