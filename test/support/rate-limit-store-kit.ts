import type { BucketSpec } from '../../src/locks/rate-limit/core/decision.types.js';
import type { ScriptRunner } from '../../src/locks/rate-limit/store/redis-store.options.js';

/** A GCRA bucket of `capacity` refilling `perSec` tokens a second, cost 1, every flag off. */
export const gcra = (key: string, capacity: number, perSec: number): BucketSpec => ({
  key,
  kind: 'g',
  capacity,
  intervalUs: 1e6 / perSec,
  cost: 1,
  shadow: false,
  soft: false,
  degradable: false,
  group: 'x',
});

/** `redis` as a store's script runner, counting the calls of each script. */
export function countingRunner(redis: ScriptRunner): {
  runner: ScriptRunner;
  calls: Map<string, number>;
} {
  const calls = new Map<string, number>();
  return {
    calls,
    runner: {
      script: (name, keys, args) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return redis.script(name, keys, args);
      },
    },
  };
}
