import { Injectable, Logger } from '@nestjs/common';
import { RedisService } from '../../../redis/redis.service.js';
import { MemoryRateLimitStore } from '../store/memory-rate-limit.store.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';

/**
 * Gives a claim back (`claim: <name>` on a slice), so that a later copy of
 * the request is decided again instead of being a duplicate. For a product
 * that could not finish a claimed request and asks its sender to retry (e.g.
 * a webhook answered non-2xx so that it is redelivered). Best effort: with
 * Redis down, only this instance's memory claim is dropped.
 */
@Injectable()
export class RateLimitClaims {
  private readonly logger = new Logger('RateLimitClaims');

  constructor(
    private readonly lanes: StoreLanes,
    private readonly memory: MemoryRateLimitStore,
    private readonly redis: RedisService,
  ) {}

  /** failMode open: the claim taken on this instance's memory store only; true when it was taken already. */
  async takeLocally(claim: { key: string; ttlMs: number }): Promise<boolean> {
    const d = await this.memory.decide({
      buckets: [],
      degradeAt: 0,
      degradeFactor: 1,
      degradedHint: false,
      claim,
    });
    return d.duplicate === true;
  }

  async release(name: string, id: string): Promise<void> {
    const key = `rl:${this.lanes.tag}:claim:${name}:${id}`;
    this.memory.forget(key);
    if (!this.redis.enabled || !this.redis.ready || !this.redis.client) return;
    await this.redis.client.del(key).catch((err: unknown) => {
      this.logger.warn({ msg: 'claim release failed', claim: name, err: (err as Error).message });
    });
  }
}
