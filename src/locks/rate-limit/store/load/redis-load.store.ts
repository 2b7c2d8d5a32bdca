import type { Clock } from '../../../../common/clock.js';
import { clockArgs } from '../redis-script-args.js';
import type { Argv, ScriptRunner } from '../redis-store.options.js';
import { GlobalBucket, LEVEL_CODES, LEVEL_OF, LoadStore } from './load-store.js';
import type { LoadSettings, LoadState } from '../../core/load.types.js';

/** The load level in Redis: one `ratelimit_load` call per poll, the held level shared by every instance. */
export class RedisLoadStore implements LoadStore {
  constructor(
    private readonly redis: ScriptRunner,
    private readonly clock: Clock,
    private readonly mode: 'redis' | 'app',
  ) {}

  async compute(
    levelKey: string,
    buckets: readonly GlobalBucket[],
    s: LoadSettings,
  ): Promise<Omit<LoadState, 'at'>> {
    const args: Argv = [...clockArgs(this.clock, this.mode), s.soft, s.hard, s.holdMs];
    args.push(s.pin === undefined ? -1 : LEVEL_CODES[s.pin]);
    for (const b of buckets) args.push(b.kind, b.capacity, b.intervalUs);
    const keys = [levelKey, ...buckets.map((b) => b.key)];
    const [level, fill, src, reason] = await this.redis.script<
      [number, string, number, LoadState['reason']]
    >('ratelimit_load', keys, args);
    const source = src >= 0 ? buckets[src]?.policy : undefined;
    return {
      level: LEVEL_OF[level] ?? 'normal',
      fill: Number(fill),
      reason,
      ...(source ? { source } : {}),
    };
  }
}
