import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { LockChain } from '../../chain/lock-chain.service.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { RedisUnavailableError } from '../../redis/redis.errors.js';
import { RedisService } from '../../redis/redis.service.js';
import { AdminMetrics } from '../admin-metrics.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { POLICY_STORE, PolicyStore, PolicyVersion } from './policy-store.js';

/** Boot load attempts before starting on the shipped defaults. */
const BOOT_ATTEMPTS = 5;

/**
 * Keeps this instance on the active policy version: loads it at boot (over
 * the shipped defaults), follows announcements (pub/sub) and checks the
 * active version every `syncIntervalMs` in case one was lost. Pulls and
 * local changes run one at a time (`serial`), so an older version can never
 * overwrite a newer one on this instance.
 */
@Injectable()
export class PolicySync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PolicySync');
  private queue: Promise<unknown> = Promise.resolve();
  private pullQueued = false;
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  /** A stored version this instance refused (its locks reject it): reported by health, not retried. */
  private refused: { version: number; problems: string[] } | undefined;
  private lastError: string | undefined;
  /** True once the active version was read from the store (readiness waits for it). */
  private synced = false;

  constructor(
    @Inject(POLICY_STORE) private readonly store: PolicyStore,
    private readonly chain: LockChain,
    private readonly metrics: AdminMetrics,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
    private readonly health: HealthRegistry,
    private readonly redis: RedisService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.policyVersion.set(this.chain.current().version);
    this.chain.onChange((set) => this.metrics.policyVersion.set(set.version));
    if (this.store.kind === 'memory') return;
    this.health.registerArming('policies', () => ({
      pending: this.synced ? [] : ['policy version not synced with Redis yet'],
    }));
    // Subscribe first, then load: a change made in between is announced, not missed.
    this.unwatch = await this.store.watch(() => void this.pull());
    await this.bootLoad();
    this.timer = setInterval(() => void this.pull(), this.settings.syncIntervalMs);
    this.timer.unref();
    this.health.register('admin-policies', () => this.check(), { optional: true });
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.unwatch?.();
  }

  /** Runs `fn` after every earlier pull or change of this instance, one at a time. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Loads the active version before the instance serves traffic. A busy boot
   * can make the first commands time out, so it tries a few times; after
   * that the instance starts on its defaults and the periodic check catches up.
   */
  private async bootLoad(): Promise<void> {
    for (let attempt = 1; attempt <= BOOT_ATTEMPTS; attempt++) {
      if (await this.pull()) return;
      if (!this.redis.ready) break; // down, not just busy: start now, the periodic check catches up
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
    this.logger.warn(
      `could not load the active policy version at boot; running version ${this.chain.current().version} until the store answers`,
    );
  }

  /**
   * Applies the active stored version if this instance runs another one
   * (coalesced: at most one pull waits). Resolves false when the store failed.
   */
  pull(): Promise<boolean> {
    if (this.pullQueued) return Promise.resolve(true);
    this.pullQueued = true;
    return this.serial(async () => {
      this.pullQueued = false;
      try {
        const active = await this.store.activeVersion();
        if (
          active === 0 ||
          active === this.chain.current().version ||
          active === this.refused?.version
        )
          return (this.synced = true);
        const version = await this.store.get(active);
        if (version) this.apply(version);
        this.lastError = undefined;
        this.synced = true;
        return true;
      } catch (err) {
        const message = (err as Error).message;
        if (message !== this.lastError) this.logger.warn(`policy sync failed: ${message}`);
        this.lastError = message;
        if (!(err instanceof RedisUnavailableError)) throw err;
        return false;
      }
    }).catch(() => false);
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
