import type { BanEntry } from '../../locks/rate-limit/bans/ban.types.js';

/** A ban as stored: the lock's entry, who set it and when. No id in clear (the subject is its key part). */
export interface StoredBan extends BanEntry {
  /** ISO time the ban was set. */
  createdAt: string;
  /** Token id of the admin who set it. */
  actor: string;
}

export type BanAddResult = { ok: true; version: number } | { ok: false; held: number };

/**
 * The bans every instance enforces, shared through Redis (or in memory on one
 * instance). Each change bumps a version and is announced; instances poll
 * the version too (a lost announcement is caught).
 */
export interface BanStore {
  readonly kind: 'redis' | 'memory';
  /** Bumped by every change; 0 when none was ever stored. */
  version(): Promise<number>;
  all(): Promise<StoredBan[]>;
  /** Stores `ban` unless `max` live bans are held already (lapsed ones are dropped first). */
  add(ban: StoredBan, max: number, nowMs: number): Promise<BanAddResult>;
  /** Removes the ban `id`: what was removed (undefined: no such ban) and the version after. */
  remove(id: string): Promise<{ removed: StoredBan | undefined; version: number }>;
  /** Calls `listener(version)` on announced changes (may be lost: poll too). */
  watch(listener: (version: number) => void): Promise<() => void>;
}

export const BAN_STORE = Symbol('BanStore');
