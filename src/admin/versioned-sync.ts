import { Logger } from '@nestjs/common';

/** A shared store whose every change bumps a version and is announced (announcements may be lost). */
export interface VersionedSource {
  version(): Promise<number>;
  /** Calls `listener` on announced changes; resolves with unsubscribe once announcements flow. */
  watch(listener: (version: number) => void): Promise<() => void>;
}

export interface VersionedSyncOptions {
  /** Names the synced thing in logs (`<name> sync failed: …`). */
  name: string;
  source: VersionedSource;
  /** Milliseconds between version checks (the net under lost announcements). */
  intervalMs: number;
  /** The version taken as applied before the first pull (a pull reloads unless the store says this). */
  initialVersion: number;
  /** Reloads everything for `version`; a throw leaves the version unapplied (retried on the next pull). */
  reload(version: number): Promise<void>;
  /** Runs on a pull that found the version unchanged. */
  unchanged?(): void;
  /**
   * True when this instance needs no reload for `version` (default: it is the last version reloaded); for an
   * owner that also changes what it runs locally, or keeps a version it refused.
   */
  isApplied?(version: number): boolean;
}

/**
 * The "read a version key, reload when it moved" loop shared by the admin
 * syncs: subscribe, pull once, then pull on every announcement and every
 * `intervalMs`. Pulls and the owner's local changes run one at a time
 * (`serial`), so an older read never overwrites a newer one on this instance;
 * a pull asked for while another waits to start is that one (coalesced). A
 * failing store is logged once per distinct message, not once per pull.
 */
export class VersionedSync {
  private readonly logger: Logger;
  private appliedVersion: number;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private lastError: string | undefined;
  /** The pull queued and not started yet (a new ask joins it). */
  private waiting: Promise<boolean> | undefined;
  /** True once the store was read (readiness waits for it). */
  loaded = false;

  constructor(private readonly options: VersionedSyncOptions) {
    this.logger = new Logger(`${options.name[0].toUpperCase()}${options.name.slice(1)}Sync`);
    this.appliedVersion = options.initialVersion;
  }

  /** Subscribes first, then loads: a change made in between is announced, not missed. */
  async start(): Promise<void> {
    this.unwatch = await this.options.source.watch(() => void this.pull());
    await this.pull();
    this.timer = setInterval(() => void this.pull(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.unwatch?.();
  }

  /** Runs `fn` after every earlier pull or change of this instance, one at a time. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Reloads when the stored version moved; one pull at a time. Resolves false when the store failed. */
  pull(): Promise<boolean> {
    this.waiting ??= this.serial(async () => {
      this.waiting = undefined;
      try {
        const version = await this.options.source.version();
        const applied = this.options.isApplied
          ? this.options.isApplied(version)
          : version === this.appliedVersion;
        if (applied) {
          this.options.unchanged?.();
          return (this.loaded = true);
        }
        await this.options.reload(version);
        this.appliedVersion = version;
        this.lastError = undefined;
        return (this.loaded = true);
      } catch (err) {
        const message = (err as Error).message;
        if (message !== this.lastError)
          this.logger.warn(`${this.options.name} sync failed: ${message}`);
        this.lastError = message;
        return false;
      }
    });
    return this.waiting;
  }
}
