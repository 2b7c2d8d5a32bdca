import type { HeartbeatRide } from '../../redis/heartbeat-riders.js';
import type { AdminRedisCommands } from '../admin-redis.js';
import type { InstanceCounts, StatsStore } from './stats-store.js';

/**
 * Every instance's counters in one hash `cfg:{<env>:<service>}:stats`
 * (instance id → JSON snapshot). The hash expires `ttlMs` after the last
 * write of any instance; entries of instances that stopped writing are
 * ignored after `maxAgeMs` and deleted when read. `ride` gives the same
 * write for the instance heartbeat to carry.
 */
export class RedisStatsStore implements StatsStore {
  readonly kind = 'redis';
  private readonly key: string;

  constructor(
    private readonly redis: AdminRedisCommands,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.key = `cfg:${redis.tag}:stats`;
  }

  async publish(snapshot: InstanceCounts): Promise<void> {
    await this.redis.run('admin.stats.publish', (c) =>
      c
        .pipeline()
        .hset(this.key, snapshot.instance, JSON.stringify(snapshot))
        .pexpire(this.key, this.ttlMs)
        .exec(),
    );
  }

  ride(snapshot: InstanceCounts): HeartbeatRide {
    return {
      key: this.key,
      field: snapshot.instance,
      value: JSON.stringify(snapshot),
      ttlMs: this.ttlMs,
    };
  }

  async collect(maxAgeMs: number): Promise<InstanceCounts[]> {
    const raw = await this.redis.run('admin.stats.collect', (c) => c.hgetall(this.key));
    const since = this.clock() - maxAgeMs;
    const fresh: InstanceCounts[] = [];
    const stale: string[] = [];
    for (const [id, json] of Object.entries(raw)) {
      const s = JSON.parse(json) as InstanceCounts;
      if (s.at >= since) fresh.push(s);
      else stale.push(id);
    }
    if (stale.length > 0)
      await this.redis.run('admin.stats.prune', (c) => c.hdel(this.key, ...stale));
    return fresh;
  }
}
