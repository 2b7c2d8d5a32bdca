import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { InstalledParts } from '../installed-parts.service.js';
import { VersionedSync } from '../versioned-sync.js';
import { BAN_STORE, type BanStore, type StoredBan } from './ban-store.js';

/** How often lapsed bans are dropped from the lock's table (local: no Redis call). */
const PRUNE_MS = 1_000;

/**
 * Keeps the rate-limit lock's ban table on the stored bans: all of them at
 * boot, then every change (pub/sub, plus a version check every
 * `syncIntervalMs` as the safety net). Lapsed bans leave the table every
 * PRUNE_MS, without a Redis call. The request path never reads the store.
 */
@Injectable()
export class BansSync implements OnApplicationBootstrap, OnApplicationShutdown {
  private applied: StoredBan[] = [];
  private readonly sync: VersionedSync;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(BAN_STORE) private readonly store: BanStore,
    private readonly parts: InstalledParts,
    @Inject(ADMIN_SETTINGS) settings: AdminSettings,
    private readonly health: HealthRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.sync = new VersionedSync({
      name: 'bans',
      source: store,
      intervalMs: settings.syncIntervalMs,
      initialVersion: -1,
      reload: () => this.reload(),
      unchanged: () => this.dropLapsed(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.parts.bans()) return;
    if (this.store.kind === 'redis')
      this.health.registerArming('bans', () => ({
        pending: this.sync.loaded ? [] : ['bans not loaded from Redis yet'],
      }));
    await this.sync.start();
    this.pruneTimer = setInterval(() => this.dropLapsed(), PRUNE_MS);
    this.pruneTimer.unref();
  }

  onApplicationShutdown(): void {
    this.sync.stop();
    clearInterval(this.pruneTimer);
  }

  /** Reads the stored bans when their version moved and hands them to the lock; one pull at a time. */
  async pull(): Promise<void> {
    if (this.parts.bans()) await this.sync.pull();
  }

  private async reload(): Promise<void> {
    const now = this.clock.now();
    this.applied = (await this.store.all()).filter((b) => b.untilMs > now);
    this.parts.bans()?.apply(this.applied);
  }

  /** Lapsed bans leave the table, so a request stops resolving subjects nobody bans. */
  private dropLapsed(): void {
    const now = this.clock.now();
    if (!this.applied.some((b) => b.untilMs <= now)) return;
    this.applied = this.applied.filter((b) => b.untilMs > now);
    this.parts.bans()?.apply(this.applied);
  }
}
