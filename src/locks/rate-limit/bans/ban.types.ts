/** The dimensions a ban can name (docs/rate-limit.md#bans). */
export const BAN_DIMENSIONS = ['user', 'chat', 'ip', 'app'] as const;
export type BanDimension = (typeof BAN_DIMENSIONS)[number];

/** Most bans held (stored and in each instance's table): past it a new ban is refused (`too_many_bans`). */
export const MAX_BANS = 10_000;

/**
 * One ban as the rate-limit lock holds it. No id in clear: `subject` is the key part the lock
 * gives the subject (a keyed hash for users, chats and IPs; the app id for an app).
 */
export interface BanEntry {
  /** Opaque id (what `DELETE /admin/bans/:id` names). */
  id: string;
  dimension: BanDimension;
  /** The unscoped subject's key part, as the limiter hashes it. */
  subject: string;
  /**
   * The app (a Telegram user's or chat's bot) whose subject this is; null: every app (a global ban).
   * Always null for `app` bans (the subject is the app).
   */
  app: string | null;
  /** Epoch milliseconds at which the ban lapses by itself. */
  untilMs: number;
  /** Shown to the banned client (set by the admin; never an id). */
  reason?: string;
}

/** Injection token of the bans' admin port (BanAdmin). */
export const RATE_LIMIT_BANS = Symbol('RATE_LIMIT_BANS');

/** Implemented by the rate-limit lock (BanAdmin); the admin API stores, syncs and audits bans. */
export interface BanAdminPort {
  /**
   * The key part of an id given in clear (a user or chat id, an IP address, an app id), as the lock hashes it:
   * the stored and audited form. Throws a RedisUnavailableError while the shared key secret is not known yet.
   */
  subjectOf(dimension: BanDimension, id: string): string;
  /** Replaces this instance's bans (the sync's whole list). */
  apply(entries: readonly BanEntry[]): void;
  /** The bans this instance enforces now. */
  held(): BanEntry[];
}
