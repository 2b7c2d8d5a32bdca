import { Injectable, Logger } from '@nestjs/common';
import { RedisService } from '../../../redis/redis.service.js';
import { MemoryRateLimitStore } from '../store/memory-rate-limit.store.js';
import { StoreLanes } from '../store/lanes/store-lanes.js';
import { CLAIM_CHARGED } from '../core/decision.types.js';

/**
 * Gives a claim back (`claim: <name>` on a slice), so that a later copy of
 * the request is decided again instead of being a duplicate. For a product
 * that could not finish a claimed request and asks its sender to retry (e.g.
 * a webhook answered non-2xx so that it is redelivered). Best effort: with
 * Redis down, only this instance's memory claim is dropped.
 *
 * `charged`: the request was allowed, so its buckets were charged. Then the
 * claim is not dropped but marked (`c`, same expiry): the next copy takes it
 * again in its own decision call and is allowed without a second charge
 * (`reentered`), however often the sender retries. Without it a sender's
 * retries would each be charged and the request dropped as limited once it
 * could finally be served.
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

  release(name: string, id: string, opts: { charged?: boolean } = {}): Promise<void> {
    return this.releaseKey(`rl:${this.lanes.tag}:claim:${name}:${id}`, opts);
  }

  /** `release` by the claim's full key (the store tables give keys of their own). */
  async releaseKey(key: string, opts: { charged?: boolean } = {}): Promise<void> {
    if (opts.charged) this.memory.keepCharge(key);
    else this.memory.forget(key);
    if (!this.redis.enabled || !this.redis.ready || !this.redis.client) return;
    const c = this.redis.client;
    // XX: a claim that expired meanwhile is not brought back; KEEPTTL: the claim's first expiry holds.
    const done = opts.charged ? c.set(key, CLAIM_CHARGED, 'KEEPTTL', 'XX') : c.del(key);
    await done.catch((err: unknown) => {
      this.logger.warn({ msg: 'claim release failed', err: (err as Error).message });
    });
  }
}
