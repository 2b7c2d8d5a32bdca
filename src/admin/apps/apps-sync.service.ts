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
  private appliedVersion = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private lastError: string | undefined;
  /** True once the stored apps were read (readiness waits for it). */
  private loaded = false;

  constructor(
    @Inject(APP_STORE) private readonly store: AppStore,
    private readonly parts: InstalledParts,
    @Inject(ADMIN_SETTINGS) private readonly settings: AdminSettings,
    private readonly health: HealthRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.store.kind === 'memory' || !this.parts.appRegistry()) return;
    this.health.registerArming('apps', () => ({
      pending: this.loaded ? [] : ['stored API client apps not loaded from Redis yet'],
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

  /** Runs `fn` after every earlier pull or change of this instance, one at a time. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Records that this instance already runs revision `rev` of an app (it made the change itself). */
  markApplied(id: string, rev: number): void {
    this.applied.set(id, rev);
  }

  pull(): Promise<void> {
    return this.serial(async () => {
      const registry = this.parts.appRegistry();
      if (!registry) return;
      try {
        const version = await this.store.version();
        if (version === this.appliedVersion) return void (this.loaded = true);
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
        this.appliedVersion = version;
        this.lastError = undefined;
        this.loaded = true;
      } catch (err) {
        const message = (err as Error).message;
        if (message !== this.lastError) this.logger.warn(`apps sync failed: ${message}`);
        this.lastError = message;
      }
    });
  }
}
