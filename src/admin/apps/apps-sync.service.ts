import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { ADMIN_SETTINGS, AdminSettings } from '../admin-settings.js';
import { InstalledParts } from '../installed-parts.service.js';
import { VersionedSync } from '../versioned-sync.js';
import { APP_STORE, AppStore } from './app-store.js';

/**
 * Keeps the signature lock's AppRegistry on the apps stored through the
 * admin API: all of them at boot (over APPS_FILE), then every change
 * (pub/sub, plus a version check every `syncIntervalMs`).
 */
@Injectable()
export class AppsSync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AppsSync');
  private readonly applied = new Map<string, number>();
  private readonly sync: VersionedSync;

  constructor(
    @Inject(APP_STORE) private readonly store: AppStore,
    private readonly parts: InstalledParts,
    @Inject(ADMIN_SETTINGS) settings: AdminSettings,
    private readonly health: HealthRegistry,
  ) {
    this.sync = new VersionedSync({
      name: 'apps',
      source: store,
      intervalMs: settings.syncIntervalMs,
      initialVersion: 0,
      reload: () => this.reload(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.store.kind === 'memory' || !this.parts.appRegistry()) return;
    this.health.registerArming('apps', () => ({
      pending: this.sync.loaded ? [] : ['stored API client apps not loaded from Redis yet'],
    }));
    await this.sync.start();
  }

  onApplicationShutdown(): void {
    this.sync.stop();
  }

  /** Runs `fn` after every earlier pull or change of this instance, one at a time. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.sync.serial(fn);
  }

  /** Records that this instance already runs revision `rev` of an app (it made the change itself). */
  markApplied(id: string, rev: number): void {
    this.applied.set(id, rev);
  }

  async pull(): Promise<void> {
    if (this.parts.appRegistry()) await this.sync.pull();
  }

  /** Upserts every stored app whose revision this instance does not run yet; a refused app is logged and skipped. */
  private async reload(): Promise<void> {
    const registry = this.parts.appRegistry();
    if (!registry) return;
    for (const [id, stored] of await this.store.all()) {
      if (this.applied.get(id) === stored.rev) continue;
      try {
        registry.upsert(stored.definition);
        this.applied.set(id, stored.rev);
      } catch (err) {
        this.logger.error(
          `stored app "${id}" (rev ${stored.rev}) refused here: ${(err as Error).message}`,
        );
      }
    }
  }
}
