import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { LockChain } from '../../chain/lock-chain.service.js';
import { RouteRegistry } from '../../chain/route-registry.service.js';
import { RedisUnavailableError } from '../../redis/redis.errors.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import {
  InstanceCounts,
  LockCounts,
  OutcomeCounts,
  STATS_STORE,
  StatsStore,
} from './stats-store.js';

export interface StatusView {
  /** True when the counters are summed over every live instance (Redis); false = this instance only. */
  aggregated: boolean;
  /** True when Redis did not answer and only this instance's counters are shown. */
  partial: boolean;
  policyVersion: number;
  instances: { id: string; at: string; self: boolean }[];
  /** `{ lock: { policy: counts } }` summed over the instances. */
  byLock: LockCounts;
  /** Counters per route policy and lock, with the routes that policy protects (routes of one policy share its counters). */
  byPolicy: { policy: string; routes: string[]; locks: Record<string, OutcomeCounts> }[];
}

/**
 * Lock counters across instances: each instance writes its LockStats
 * snapshot every `statsIntervalMs`; the status answer sums the snapshots of
 * instances seen within three intervals, with this instance's taken live.
 */
@Injectable()
export class AdminStatus implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AdminStatus');
  readonly instance = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  constructor(
    @Inject(STATS_STORE) private readonly store: StatsStore,
    private readonly chain: LockChain,
    private readonly routes: RouteRegistry,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.store.kind === 'memory') return;
    this.timer = setInterval(() => void this.publish(), this.settings.statsIntervalMs);
    this.timer.unref();
    void this.publish();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async status(): Promise<StatusView> {
    const own = this.snapshot();
    let others: InstanceCounts[] = [];
    let partial = false;
    try {
      others = (await this.store.collect(3 * this.settings.statsIntervalMs)).filter(
        (s) => s.instance !== own.instance,
      );
    } catch (err) {
      if (!(err instanceof RedisUnavailableError)) throw err;
      partial = true;
    }
    const all = [own, ...others];
    const byLock = sum(all.map((s) => s.counts));
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
        self: s.instance === own.instance,
      })),
      byLock,
      byPolicy,
    };
  }

  private snapshot(): InstanceCounts {
    return { instance: this.instance, at: Date.now(), counts: this.chain.stats.snapshot() };
  }

  private async publish(): Promise<void> {
    try {
      await this.store.publish(this.snapshot());
      this.failing = false;
    } catch (err) {
      if (!this.failing)
        this.logger.warn(`could not publish lock counters: ${(err as Error).message}`);
      this.failing = true;
    }
  }
}

function sum(list: LockCounts[]): LockCounts {
  const out: LockCounts = {};
  for (const counts of list) {
    for (const [lock, byPolicy] of Object.entries(counts)) {
      for (const [policy, c] of Object.entries(byPolicy)) {
        const target = ((out[lock] ??= {})[policy] ??= {
          allowed: 0,
          rejected: 0,
          shadow_rejected: 0,
          short_circuited: 0,
          skipped: 0,
        });
        for (const [k, n] of Object.entries(c) as [keyof OutcomeCounts, number][])
          target[k] = (target[k] ?? 0) + n;
      }
    }
  }
  return out;
}
