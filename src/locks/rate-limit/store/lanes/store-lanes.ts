import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../../common/clock.js';
import { RedisService } from '../../../../redis/redis.service.js';
import { InjectRateLimitSettings } from '../../rate-limit.settings.js';
import type { RateLimitSettings } from '../../rate-limit.types.js';
import { MemoryRateLimitStore } from '../memory-rate-limit.store.js';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../rate-limit.store.js';
import { KeyHasher } from '../../subjects/key-hasher.js';
import { KeyHashers } from './key-hashers.js';
import { RateLimitPeers } from './rate-limit-peers.service.js';

/** Where one decision is made: a store, the hasher of its keys, the scale of every limit. */
export interface Lane {
  store: RateLimitStore;
  hasher: KeyHasher;
  /** Multiplier of every capacity and rate: 1, or 1 ÷ live instances for failMode `local`. */
  scale: number;
  /** The shared store (Redis): its failures go to the failMode, its refusals to the deny cache. */
  remote: boolean;
}

/**
 * Which store decides: the service's store (RATE_LIMIT_STORE: Redis, or
 * memory without Redis), or — for failMode `local` while Redis is down — the
 * in-process memory store at limit ÷ live instances. After a Redis failure
 * Redis is left alone for `probeAfterMs`, then the next request tries it.
 */
@Injectable()
export class StoreLanes {
  /** Hash tag of every key, `{<env>:<service>}`. */
  readonly tag: string;
  private readonly remote: boolean;
  private primary: Lane | undefined;
  private fallback: Lane;
  private downUntil = 0;

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    memory: MemoryRateLimitStore,
    private readonly hashers: KeyHashers,
    private readonly peers: RateLimitPeers,
    private readonly redis: RedisService,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.tag = redis.tag;
    this.remote = redis.enabled;
    if (!this.remote) this.primary = { store, hasher: hashers.local, scale: 1, remote: false };
    this.fallback = { store: memory, hasher: hashers.local, scale: 1, remote: false };
  }

  /** The service's store, or undefined while Redis is down, left alone, or its key secret is not known yet. */
  current(): Lane | undefined {
    if (!this.remote) return this.primary;
    if (this.primary === undefined) {
      const hasher = this.hashers.shared();
      if (!hasher) return undefined;
      this.primary = { store: this.store, hasher, scale: 1, remote: true };
    }
    return this.redis.ready && this.clock.now() >= this.downUntil ? this.primary : undefined;
  }

  /**
   * The service's store for a read that must see the shared keys (usage): when Redis is up but the key secret is
   * not known yet (just after boot), one heartbeat is awaited for it; undefined if the store is still not there.
   * Never the memory lane while Redis is configured: its keys are hashed with another secret.
   */
  async shared(): Promise<Lane | undefined> {
    const now = this.current();
    if (now || !this.remote) return now;
    if (!this.hashers.shared()) await this.peers.beat();
    return this.current();
  }

  /** failMode `local`: the memory store at limit ÷ live instances (the last known count). */
  local(): Lane {
    const scale = 1 / Math.max(1, this.peers.liveInstances);
    if (this.fallback.scale !== scale) this.fallback = { ...this.fallback, scale };
    return this.fallback;
  }

  /** Redis failed: the failMode decides for `probeAfterMs`. */
  failed(): void {
    this.downUntil = this.clock.now() + this.settings.probeAfterMs;
  }
}
