import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { CLOCK, type Clock } from '../../../../common/clock.js';
import { InjectConfig } from '../../../../config/config.module.js';
import type { RampartConfig } from '../../../../config/config.types.js';
import { MetricsService } from '../../../../metrics/metrics.service.js';
import { HeartbeatRiders, riderArgs } from '../../../../redis/heartbeat-riders.js';
import { RedisService } from '../../../../redis/redis.service.js';
import { InjectRateLimitSettings } from '../../rate-limit.settings.js';
import type { RateLimitSettings } from '../../rate-limit.types.js';

const SECRET_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * What the instances of one service share through Redis for the rate limiter:
 * a heartbeat set of live instances (failMode `local` divides every limit by
 * their count; the last known count stays in force while Redis is down) and
 * the key-hashing secret — RATE_LIMIT_KEY_SECRET when set, otherwise a random
 * one created once in Redis (SET NX) and read by every instance. Other
 * periodic writes of the instance ride on the heartbeat (HeartbeatRiders):
 * an idle instance makes one Redis call per beat.
 */
@Injectable()
export class RateLimitPeers implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimitPeers');
  readonly id = randomUUID();
  /** Live instances, last known (≥ 1). */
  liveInstances = 1;
  /** Secret for keys in Redis; undefined until known (Redis configured, no env secret, not reached yet). */
  sharedSecret: Buffer | undefined;
  /** Secret for keys that never leave this process (memory store, local fallback). */
  readonly localSecret = randomBytes(32);
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private readonly candidate = randomBytes(32).toString('base64url');
  private readonly envSecret: boolean;

  constructor(
    private readonly redis: RedisService,
    @InjectConfig() config: RampartConfig,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    private readonly metrics: MetricsService,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly riders: HeartbeatRiders,
  ) {
    this.envSecret = config.rateLimitKeySecret !== undefined;
    if (config.rateLimitKeySecret)
      this.sharedSecret = Buffer.from(config.rateLimitKeySecret, 'utf8');
    else if (!redis.enabled) this.sharedSecret = this.localSecret;
  }

  async onModuleInit(): Promise<void> {
    if (!this.redis.enabled) return;
    this.riders.beating(this.settings.heartbeatMs);
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.settings.heartbeatMs);
    this.timer.unref();
  }

  /**
   * One heartbeat (single flight); a failure keeps the last known values. The beat starts in a microtask, once
   * `beating` is set: what it asks its riders synchronously (the load read looks at the store lanes, which ask
   * for a beat while the key secret is unknown) then joins this beat instead of starting one inside it, which
   * recursed until the stack overflowed.
   */
  beat(): Promise<void> {
    this.beating ??= Promise.resolve()
      .then(() => this.doBeat())
      .finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async doBeat(): Promise<void> {
    const tag = this.redis.tag;
    const manage = !this.envSecret;
    const rides = this.riders.take();
    const blocks = this.riders.takeBlocks();
    const read = this.riders.takeRead();
    const riding = riderArgs(rides, blocks, read);
    try {
      const [count, secret, readResult, ...raised] = await this.redis.script<
        [number, string | null, unknown, ...number[]]
      >(
        'ratelimit_instance',
        [`rl:${tag}:instances`, `rl:${tag}:keysecret`, ...riding.keys],
        [
          this.id,
          this.settings.heartbeatMs * 3,
          manage ? this.candidate : '',
          SECRET_TTL_MS,
          this.clock.now(),
          ...riding.args,
        ],
      );
      for (const { rider, ride } of rides) rider.written(ride);
      read?.answered(readResult);
      blocks.forEach(({ rider, block }, i) => rider.settled(block, Number(raised[i] ?? 0)));
      this.liveInstances = Math.max(1, count);
      if (manage && secret) this.sharedSecret = Buffer.from(secret, 'utf8');
      this.metrics
        .gauge(
          'rampart_ratelimit_live_instances',
          'Live instances seen in the Redis heartbeat set (last known while Redis is down)',
        )
        .set(this.liveInstances);
    } catch (err) {
      for (const { rider, block } of blocks) rider.settled(block, err as Error);
      read?.answered(err as Error);
      this.logger.debug?.(`heartbeat failed: ${(err as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (!this.redis.ready) return;
    await this.redis
      .run('ratelimit leave', (c) => c.zrem(`rl:${this.redis.tag}:instances`, this.id))
      .catch(() => undefined);
  }
}
