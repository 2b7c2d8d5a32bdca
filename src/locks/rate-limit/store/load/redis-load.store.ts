import type { Clock } from '../../../../common/clock.js';
import { clockArgs } from '../redis-script-args.js';
import type { Argv, ScriptRunner } from '../redis-store.options.js';
import { GlobalBucket, LEVEL_CODES, LEVEL_OF, LoadRequest, LoadStore } from './load-store.js';
import type { LoadSettings, LoadState } from '../../core/load.types.js';

/**
 * The load level in Redis: one `ratelimit_load` call per poll, the held level shared by every instance.
 * `request` gives the same computation as the instance heartbeat carries it (lua/ratelimit_instance.lua).
 */
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
    const { keys, args, parse } = this.request(levelKey, buckets, s);
    return parse(await this.redis.script<LoadReply>('ratelimit_load', keys, args));
  }

  request(levelKey: string, buckets: readonly GlobalBucket[], s: LoadSettings): LoadRequest {
    const args: Argv = [...clockArgs(this.clock, this.mode), s.soft, s.hard, s.holdMs];
    args.push(s.pin === undefined ? -1 : LEVEL_CODES[s.pin]);
    for (const b of buckets) args.push(b.kind, b.capacity, b.intervalUs);
    const keys = [levelKey, ...buckets.map((b) => b.key)];
    return { keys, args, parse: (reply) => stateOf(reply as LoadReply, buckets) };
  }
}

type LoadReply = [number, string, number, LoadState['reason']];

function stateOf(reply: LoadReply, buckets: readonly GlobalBucket[]): Omit<LoadState, 'at'> {
  if (!Array.isArray(reply) || reply.length < 4) throw new Error('load level: unexpected reply');
  const [level, fill, src, reason] = reply;
  const source = src >= 0 ? buckets[src]?.policy : undefined;
  return {
    level: LEVEL_OF[level] ?? 'normal',
    fill: Number(fill),
    reason,
    ...(source ? { source } : {}),
  };
}
