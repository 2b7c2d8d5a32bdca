import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { LockChain } from '../../chain/lock-chain.service.js';
import { RouteRegistry } from '../../chain/route-registry.service.js';
import { HeartbeatRiders } from '../../redis/heartbeat-riders.js';
import { RedisUnavailableError } from '../../redis/redis.errors.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { RedisFigures } from '../observability/redis-figures.js';
import { RedisFiguresSampler } from '../observability/redis-figures.service.js';
import { InstalledParts } from '../installed-parts.service.js';
import {
  InstanceCounts,
  LockCounts,
  OutcomeCounts,
  STATS_STORE,
  StatsStore,
} from './stats-store.js';
import { StatsPublisher } from './stats-publisher.js';
import { sumCounts } from './stats-sum.js';

export interface StatusView {
  /** True when the counters are summed over every live instance (Redis); false = this instance only. */
  aggregated: boolean;
  /** True when Redis did not answer and only this instance's counters are shown. */
  partial: boolean;
  policyVersion: number;
  /** Live instances, with the policy version each ran at its last snapshot (absent: an older instance). */
  instances: { id: string; at: string; self: boolean; policyVersion?: number }[];
  /** `{ lock: { policy: counts } }` summed over the instances. */
  byLock: LockCounts;
  /** Counters per route policy and lock, with the routes that policy protects (routes of one policy share its counters). */
  byPolicy: { policy: string; routes: string[]; locks: Record<string, OutcomeCounts> }[];
  /** Redis-side figures (memory in use, rate-limit keys), sampled every `admin.redisSampleMs`; null without Redis or before the first sample. */
  redis: RedisFigures | null;
  /** The service-wide load level and each policy's rank and action at it (null without the rate-limit lock). */
  load: unknown;
}

/**
 * Lock counters across instances: each instance writes its LockStats
 * snapshot every `statsIntervalMs` when it changed; an unchanged one rides on
 * the instance heartbeat (StatsPublisher). The status answer sums
 * the snapshots of instances seen within three periods (the longer of
 * `statsIntervalMs` and the heartbeat), with this instance's taken live.
 */
@Injectable()
export class AdminStatus implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly instance = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly publisher: StatsPublisher;

  constructor(
    @Inject(STATS_STORE) private readonly store: StatsStore,
    private readonly chain: LockChain,
    private readonly routes: RouteRegistry,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
    private readonly figures: RedisFiguresSampler,
    private readonly parts: InstalledParts,
    riders: HeartbeatRiders,
  ) {
    const interval = settings.statsIntervalMs;
    this.publisher = new StatsPublisher(store, interval, () => this.snapshot(), riders);
  }

  onApplicationBootstrap(): void {
    if (this.store.kind === 'memory') return;
    this.publisher.start();
  }

  onApplicationShutdown(): void {
    this.publisher.stop();
  }

  /** True when the counters of other instances are read from Redis. */
  get shared(): boolean {
    return this.store.kind === 'redis';
  }

  /** This instance's counters (live) and those of the other instances seen within three periods (StatsPublisher). */
  async instanceCounts(): Promise<{ all: InstanceCounts[]; partial: boolean }> {
    const own = this.snapshot();
    let others: InstanceCounts[] = [];
    let partial = false;
    try {
      others = (await this.store.collect(this.publisher.liveMs())).filter(
        (s) => s.instance !== own.instance,
      );
    } catch (err) {
      if (!(err instanceof RedisUnavailableError)) throw err;
      partial = true;
    }
    return { all: [own, ...others], partial };
  }

  async status(): Promise<StatusView> {
    const { all, partial } = await this.instanceCounts();
    const byLock = sumCounts(all.map((s) => s.counts));
    const routes = new Map<string, string[]>();
    for (const r of this.routes.routes())
      if (r.policy !== undefined)
        routes.set(r.policy, [...(routes.get(r.policy) ?? []), `${r.method} ${r.template}`]);
    for (const byPolicy of Object.values(byLock))
      for (const p of Object.keys(byPolicy)) if (!routes.has(p)) routes.set(p, []);
    const byPolicy = [...routes].map(([policy, list]) => ({
      policy,
      routes: list,
      locks: Object.fromEntries(
        Object.entries(byLock).flatMap(([lock, counts]) =>
          counts[policy] ? [[lock, counts[policy]]] : [],
        ),
      ),
    }));
    return {
      aggregated: this.store.kind === 'redis' && !partial,
      partial,
      policyVersion: this.chain.current().version,
      instances: all.map((s) => ({
        id: s.instance,
        at: new Date(s.at).toISOString(),
        self: s.instance === this.instance,
        ...(s.policyVersion !== undefined ? { policyVersion: s.policyVersion } : {}),
      })),
      byLock,
      byPolicy,
      redis: this.figures.latest(),
      load: this.parts.rateLimit()?.load() ?? null,
    };
  }

  private snapshot(): InstanceCounts {
    return {
      instance: this.instance,
      at: Date.now(),
      policyVersion: this.chain.current().version,
      counts: this.chain.stats.snapshot(),
    };
  }
}
