import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Gauge } from 'prom-client';
import { CLOCK, type Clock } from '../../common/clock.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { RedisService } from '../../redis/redis.service.js';
import { AdminRedis } from '../admin-redis.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { RedisFigures, measureRedis, rateLimitKeyPattern } from './redis-figures.js';

type FigureGauges = Record<'used' | 'max' | 'keys' | 'rateLimitKeys' | 'sampledAt', Gauge>;

/**
 * Samples the Redis-side figures every `admin.redisSampleMs`: one instance
 * per interval measures (a lease, `SET NX PX`) and leaves the result in
 * Redis; every instance reads it and exports it as gauges, so each scrape
 * target reports the same numbers and Redis is scanned once per interval
 * whatever the number of instances. Nothing here runs per request.
 */
@Injectable()
export class RedisFiguresSampler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RedisFigures');
  private readonly id = randomBytes(6).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private last: RedisFigures | null = null;
  private gauges: FigureGauges | undefined;
  private failing = false;

  constructor(
    private readonly redis: RedisService,
    private readonly admin: AdminRedis,
    private readonly metrics: MetricsService,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.redis.enabled) return;
    const g = (name: string, help: string): Gauge => this.metrics.gauge(name, help);
    this.gauges = {
      used: g('rampart_redis_memory_used_bytes', 'Memory Redis uses (INFO used_memory), sampled'),
      max: g('rampart_redis_memory_max_bytes', 'Redis maxmemory (0 = no limit), sampled'),
      keys: g('rampart_redis_keys', 'Keys in Redis (DBSIZE over the masters), sampled'),
      rateLimitKeys: g(
        'rampart_ratelimit_keys',
        'Rate-limit bucket keys of this service in Redis, sampled (estimated past the scan budget)',
      ),
      sampledAt: g(
        'rampart_redis_figures_timestamp_seconds',
        'Unix time of the Redis figures sample the other rampart_redis_* gauges show',
      ),
    };
    this.timer = setInterval(() => void this.tick(), this.settings.redisSampleMs);
    this.timer.unref();
    // The first sample a little after boot, not during it (short-lived instances never scan).
    this.first = setTimeout(() => void this.tick(), Math.min(this.settings.redisSampleMs, 5000));
    this.first.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    clearTimeout(this.first);
  }

  /** The latest sample any instance made (null before the first, or without Redis). */
  latest(): RedisFigures | null {
    return this.last;
  }

  /**
   * Takes the lease and measures if no instance did in this interval, then reads the shared
   * result — also when this instance's own measurement failed, so that it still shows what
   * another instance measured.
   */
  async tick(): Promise<void> {
    const ms = this.settings.redisSampleMs;
    const key = `cfg:${this.admin.tag}:redis-figures`;
    let failure: unknown;
    try {
      const won = await this.admin.run('admin.redis_figures.lease', (c) =>
        c.set(`${key}:lease`, this.id, 'PX', Math.max(500, Math.floor(ms * 0.9)), 'NX'),
      );
      if (won === 'OK') {
        const pattern = rateLimitKeyPattern(this.admin.tag);
        const figures = await this.admin.run('admin.redis_figures.measure', (c) =>
          measureRedis(c, pattern, this.settings.redisScanMaxKeys, this.clock.now()),
        );
        await this.admin.run('admin.redis_figures.store', (c) =>
          c.set(key, JSON.stringify(figures), 'PX', 3 * ms),
        );
      }
    } catch (err) {
      failure = err;
    }
    try {
      const raw = await this.admin.run('admin.redis_figures.read', (c) => c.get(key));
      if (raw !== null) this.show(JSON.parse(raw) as RedisFigures);
    } catch (err) {
      failure ??= err;
    }
    if (failure !== undefined && !this.failing)
      this.logger.warn(`could not sample Redis figures: ${(failure as Error).message}`);
    this.failing = failure !== undefined;
  }

  private show(f: RedisFigures): void {
    this.last = f;
    const g = this.gauges!;
    g.used.set(f.usedMemoryBytes);
    g.max.set(f.maxMemoryBytes);
    g.keys.set(f.keys);
    g.rateLimitKeys.set(f.rateLimitKeys);
    g.sampledAt.set(Date.parse(f.sampledAt) / 1000);
  }
}
