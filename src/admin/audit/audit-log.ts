/** One changed value in an audit entry. Secret values never appear (masked or described). */
export interface AuditChange {
  /** Dotted path, e.g. `policies.search.locks.rateLimit.mode`, `apps.acme.secrets.k2`. */
  path: string;
  /** Value before (absent = did not exist). */
  from?: unknown;
  /** Value after (absent = removed). */
  to?: unknown;
}

/** Who changed what, when. */
export interface AuditEntry {
  /** Stream id, also the paging cursor (`before`). */
  id: string;
  /** ISO time. */
  at: string;
  /** Token id of the admin (`env` for ADMIN_TOKEN). */
  actor: string;
  /** What was done, e.g. `policy.lock_mode`, `policy.rollback`, `app.rotate_secret`, `bloom.rebuild`. */
  action: string;
  /** What it was done to, e.g. `search/rateLimit`, `app:acme`. */
  target: string;
  summary: string;
  /** Policy version the change produced, when it changed policies. */
  version?: number;
  changes: AuditChange[];
}

export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** Cursor for the next (older) page; absent on the last page. */
  next?: string;
}

/** Append-only, bounded log of admin changes. */
export interface AuditLog {
  readonly kind: 'redis' | 'memory';
  append(entry: Omit<AuditEntry, 'id'>): Promise<string>;
  /** At most `limit` entries older than the cursor `before` (newest first; from the newest when absent). */
  page(limit: number, before?: string): Promise<AuditPage>;
}

export const AUDIT_LOG = Symbol('AuditLog');

/** Stream ids: `<ms>-<seq>`. */
export const AUDIT_ID = /^\d{1,16}-\d{1,16}$/;
