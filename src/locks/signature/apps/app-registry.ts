import type { Clock } from '../../../common/clock.js';
import type { ClientApp, ClientAppView } from './app.types.js';
import { viewOf } from './app.types.js';
import { parseAppDefinition } from './app-definition.js';
import { parseApps } from './apps-file.js';

/** What changed in the registry: one app (created, updated, deactivated, secrets rotated…) or all of them. */
export type AppChange =
  | { kind: 'upsert'; appId: string }
  | { kind: 'remove'; appId: string }
  | { kind: 'replaceAll'; count: number };

export type AppChangeListener = (change: AppChange) => void;

/** The registry refused a change; lists every problem (no secret in any message). */
export class AppRegistryError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid app definition: ${problems.join('; ')}`);
    this.name = 'AppRegistryError';
  }
}

/**
 * The API client apps and their secrets, in memory. Loaded from APPS_FILE at
 * boot; the admin API changes it at run time (create, deactivate, rotate and
 * retire secrets via `upsert`, bulk sync via `replaceAll`) and other
 * instances follow through `onChange` + their own sync. Reads are a map
 * lookup on the hot path.
 */
export class AppRegistry {
  private apps = new Map<string, ClientApp>();
  private readonly listeners: AppChangeListener[] = [];

  constructor(
    private readonly clock: Clock,
    apps: readonly ClientApp[] = [],
  ) {
    for (const a of apps) this.apps.set(a.id, a);
  }

  get size(): number {
    return this.apps.size;
  }

  /** The app with this id, active or not; undefined when unknown. */
  get(id: string): ClientApp | undefined {
    return this.apps.get(id);
  }

  /** Every app without secret material. */
  list(): ClientAppView[] {
    const now = this.clock.now();
    return [...this.apps.values()].map((a) => viewOf(a, now));
  }

  /**
   * Creates or replaces one app from its definition (the APPS_FILE shape,
   * secrets in clear). Throws AppRegistryError listing every problem; on
   * error nothing changes.
   */
  upsert(definition: unknown): ClientAppView {
    const { app, problems } = parseAppDefinition(definition, 'app', this.clock.now());
    if (!app) throw new AppRegistryError(problems);
    this.apps.set(app.id, app);
    this.emit({ kind: 'upsert', appId: app.id });
    return viewOf(app, this.clock.now());
  }

  /** Removes an app; true when it existed. */
  remove(id: string): boolean {
    const existed = this.apps.delete(id);
    if (existed) this.emit({ kind: 'remove', appId: id });
    return existed;
  }

  /** Replaces every app at once (the APPS_FILE shape); all or nothing. */
  replaceAll(definitions: unknown): number {
    const { apps, problems } = parseApps(definitions, 'apps', this.clock.now());
    if (problems.length > 0) throw new AppRegistryError(problems);
    this.apps = new Map(apps.map((a) => [a.id, a]));
    this.emit({ kind: 'replaceAll', count: apps.length });
    return apps.length;
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: AppChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  private emit(change: AppChange): void {
    for (const l of this.listeners) l(change);
  }
}
