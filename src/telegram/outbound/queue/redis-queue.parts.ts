import type { RedisService } from '../../../redis/redis.service.js';
import { IdCipher } from '../id-cipher.js';
import { partitionOf } from './queue-partitions.js';

/** The calls a store needs (RedisService, or the sender's own connection OutboundRedis). */
export type Runner = Pick<RedisService, 'script' | 'run'>;

/**
 * The channel the enqueue script announces newly due lanes of partition `k` on: only the partition's owner
 * wakes (PartitionOwners). Without `k`: the channel of versions that named no partition (every worker wakes).
 */
export const wakeChannel = (base: string, k?: number): string =>
  k === undefined ? `tgo:{${base}}:wake` : `tgo:{${base}}:wake:${k}`;
/** The channel a bot's cooldown lifted early is announced on (its id): every worker forgets the cooldown. */
export const liftChannel = (base: string): string => `tgo:{${base}}:lift`;

/**
 * What every piece of the Redis queue (redis-outbound-queue.store.ts) shares: the connection, the key
 * schema and the id cipher. `partitions` partitions, each under its own hash tag `{<env>:<service>:q<k>}`
 * (spread over a Cluster's slots); a lane lives in the partition of its key, and every change of a lane is
 * one Lua call there. A job id points to its partition (`…:id:<job id>` in the id's own partition), so the
 * status of a job is found from its id alone.
 */
export class RedisQueueParts {
  constructor(
    readonly redis: Runner,
    readonly base: string,
    readonly partitions: number,
    readonly retentionMs: number,
    /** Chat ids in Redis: lanes by pseudonym, the job's chat sealed (docs/security.md#ids-in-redis). */
    readonly ids: IdCipher = IdCipher.from(undefined, undefined),
  ) {}

  /** The wake channel of partition `k` (lanes newly due there). */
  wake(k: number): string {
    return wakeChannel(this.base, k);
  }

  /** The key prefix of partition `k` (its hash tag). */
  prefix(k: number): string {
    return `tgo:{${this.base}:q${k}}`;
  }

  /** The partition of a lane. */
  partOf(lane: string): number {
    return partitionOf(lane, this.partitions);
  }

  /** The key that says which partition job `id` is in. */
  idKey(id: string): string {
    return `${this.prefix(partitionOf(id, this.partitions))}:id:${id}`;
  }

  /** The partition job `id` is in, or undefined (never queued, or past its retention). */
  async partitionOfJob(id: string): Promise<number | undefined> {
    const k = await this.redis.run('telegram.id', (c) => c.get(this.idKey(id)));
    return k === null ? undefined : Number(k);
  }
}
