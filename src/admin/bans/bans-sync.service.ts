import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { InstalledParts } from '../installed-parts.service.js';
import { BAN_STORE, type BanStore, type StoredBan } from './ban-store.js';

/**
 * Keeps the rate-limit lock's ban table on the stored bans: all of them at
 * boot, then every change (pub/sub, plus a version check every
 * `syncIntervalMs`, which also drops lapsed bans from the table). The request
 * path never reads the store.
 */
@Injectable()
export class BansSync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('BansSync');
  private appliedVersion = -1;
  private applied: StoredBan[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private lastError: string | undefined;
  private loaded = false;

  constructor(
    @Inject(BAN_STORE) private readonly store: BanStore,
    private readonly parts: InstalledParts,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
    private readonly health: HealthRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.parts.bans()) return;
    if (this.store.kind === 'redis')
      this.health.registerArming('bans', () => ({
        pending: this.loaded ? [] : ['bans not loaded from Redis yet'],
      }));
    this.unwatch = await this.store.watch(() => void this.pull());
    await this.pull();
    this.timer = setInterval(() => void this.pull(), this.settings.syncIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.unwatch?.();
  }

  /** Reads the stored bans when their version moved and hands them to the lock; one pull at a time. */
  pull(): Promise<void> {
    const run = this.queue.then(() => this.pullNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async pullNow(): Promise<void> {
    const port = this.parts.bans();
    if (!port) return;
    try {
      const version = await this.store.version();
      const now = this.clock.now();
      if (version === this.appliedVersion) {
        // Lapsed bans leave the table, so a request stops resolving subjects nobody bans.
        if (this.applied.some((b) => b.untilMs <= now)) {
          this.applied = this.applied.filter((b) => b.untilMs > now);
          port.apply(this.applied);
        }
        return void (this.loaded = true);
      }
      this.applied = (await this.store.all()).filter((b) => b.untilMs > now);
      port.apply(this.applied);
      this.appliedVersion = version;
      this.lastError = undefined;
      this.loaded = true;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.lastError) this.logger.warn(`bans sync failed: ${message}`);
      this.lastError = message;
    }
  }
}
