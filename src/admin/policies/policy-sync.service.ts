import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { RedisService } from '../../redis/redis.service.js';
import { AdminMetrics } from '../admin-metrics.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { VersionedSync } from '../versioned-sync.js';
import { POLICY_STORE, PolicyStore, PolicyVersion } from './policy-store.js';

/** Boot load attempts before starting on the shipped defaults. */
const BOOT_ATTEMPTS = 5;

/**
 * Keeps this instance on the active policy version: loads it at boot (over
 * the shipped defaults), follows announcements (pub/sub) and checks the
 * active version every `syncIntervalMs` in case one was lost (VersionedSync,
 * as the apps and bans). The version this instance runs is the chain's (local
 * changes replace it too, through `serial`); a version its locks refuse is
 * kept out (reported by health, not retried).
 */
@Injectable()
export class PolicySync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PolicySync');
  private readonly sync: VersionedSync;
  /** A stored version this instance refused (its locks reject it): reported by health, not retried. */
  private refused: { version: number; problems: string[] } | undefined;

  constructor(
    @Inject(POLICY_STORE) private readonly store: PolicyStore,
    private readonly chain: LockChain,
    private readonly metrics: AdminMetrics,
    @Inject(ADMIN_SETTINGS) settings: AdminSettings,
    private readonly health: HealthRegistry,
    private readonly redis: RedisService,
  ) {
    this.sync = new VersionedSync({
      name: 'policy',
      source: { version: () => store.activeVersion(), watch: (l) => store.watch(l) },
      intervalMs: settings.syncIntervalMs,
      initialVersion: 0,
      reload: async (active) => {
        const version = await store.get(active);
        if (version) this.apply(version);
      },
      // 0: nothing was ever stored, the instance runs its CONFIG_FILE set.
      isApplied: (v) => v === 0 || v === chain.current().version || v === this.refused?.version,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.policyVersion.set(this.chain.current().version);
    this.chain.onChange((set) => this.metrics.policyVersion.set(set.version));
    if (this.store.kind === 'memory') return;
    this.health.registerArming('policies', () => ({
      pending: this.sync.loaded ? [] : ['policy version not synced with Redis yet'],
    }));
    await this.sync.start();
    await this.bootRetry();
    this.health.register('admin-policies', () => this.check(), { optional: true });
  }

  onApplicationShutdown(): void {
    this.sync.stop();
  }

  /** Runs `fn` after every earlier pull or change of this instance, one at a time. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.sync.serial(fn);
  }

  /** Applies the active stored version if this instance runs another one. Resolves false when the store failed. */
  pull(): Promise<boolean> {
    return this.sync.pull();
  }

  /**
   * The first load failed: a busy boot can make the first commands time out, so
   * it tries a few more times; after that the instance starts on its defaults
   * and the periodic check catches up.
   */
  private async bootRetry(): Promise<void> {
    for (let attempt = 1; !this.sync.loaded && attempt < BOOT_ATTEMPTS; attempt++) {
      if (!this.redis.ready) break; // down, not just busy: start now, the periodic check catches up
      await new Promise((r) => setTimeout(r, 50 * attempt));
      if (await this.pull()) return;
    }
    if (!this.sync.loaded)
      this.logger.warn(
        `could not load the active policy version at boot; running version ${this.chain.current().version} until the store answers`,
      );
  }

  private apply(v: PolicyVersion): void {
    const problems = this.chain.validate(v.policies);
    if (problems.length > 0) {
      this.refused = { version: v.version, problems };
      this.metrics.syncFailures.inc();
      this.logger.error(
        `policy version ${v.version} cannot run on this instance, keeping version ${this.chain.current().version}: ${problems.join('; ')}`,
      );
      return;
    }
    this.refused = undefined;
    this.chain.replace(v.policies, v.version, v.at);
    this.logger.log(`policy version ${v.version} applied (${v.actor}: ${v.summary})`);
  }

  private async check(): Promise<Record<string, unknown>> {
    const active = await this.store.activeVersion();
    const running = this.chain.current().version;
    if (this.refused && this.refused.version === active) {
      throw new Error(
        `active policy version ${active} refused here (running ${running}): ${this.refused.problems.join('; ')}`,
      );
    }
    return { store: this.store.kind, running, active };
  }
}
