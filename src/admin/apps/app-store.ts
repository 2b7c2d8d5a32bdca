/** One secret as stored (in clear: the signature lock needs it for HMAC). Never returned by the admin API. */
export interface AppSecretDefinition {
  id: string;
  secret: string;
  /** ISO time after which the secret stops working. */
  notAfter?: string;
}

/** An app in the APPS_FILE shape, which `AppRegistry.upsert` accepts. */
export interface AppDefinition {
  id: string;
  tier: string;
  active: boolean;
  debug: boolean;
  skewSeconds?: number;
  secrets: AppSecretDefinition[];
  /** Session key limits (`maxTtl`, `refreshGrace` in seconds or a duration) and the revocation epoch (seconds). */
  sessionKeys?: {
    maxTtl?: number | string;
    maxScope: string[];
    epoch?: number;
    refreshGrace?: number | string;
  };
}

export interface StoredApp {
  /** Revision of this app, +1 per change (optimistic concurrency). */
  rev: number;
  definition: AppDefinition;
}

export type AppPutResult = { ok: true; rev: number; version: number } | { ok: false; rev: number };

/**
 * Apps changed through the admin API (created, deactivated, rotated,
 * retired), shared by every instance. Apps from APPS_FILE that were never
 * changed are not here: each instance has them from its file.
 */
export interface AppStore {
  readonly kind: 'redis' | 'memory';
  /** Bumped by every change of any app; 0 when none was ever stored. */
  version(): Promise<number>;
  all(): Promise<Map<string, StoredApp>>;
  get(id: string): Promise<StoredApp | undefined>;
  /** Stores `definition` as revision `expectedRev + 1` only if the app is still at `expectedRev` (0 = not stored). */
  put(expectedRev: number, definition: AppDefinition): Promise<AppPutResult>;
  /** Calls `listener(version)` on announced changes (may be lost: poll too). Resolves with unsubscribe once announcements flow. */
  watch(listener: (version: number) => void): Promise<() => void>;
}

export const APP_STORE = Symbol('AppStore');
