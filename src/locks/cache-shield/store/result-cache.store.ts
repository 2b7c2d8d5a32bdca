/**
 * Where cached answers live: one interface, a Redis store (shared by every
 * instance) and a memory store (one instance, bounded). Both pass the table
 * in test/support/shield-result-cache.table.ts. Values are opaque strings;
 * freshness, generations and null entries are the AnswerCache's business.
 */
export const RESULT_CACHE_STORE = Symbol('RESULT_CACHE_STORE');

export interface ResultCacheStore {
  /** True when other instances share this store. */
  readonly shared: boolean;
  get(key: string): Promise<string | undefined>;
  /**
   * Stores `value` for `ttlMs` milliseconds, replacing any earlier value. `owner`: the app that filled it
   * ('' unsigned), which a bounded store evicts fairly by (the memory store); Redis keeps entries until their TTL.
   */
  set(key: string, value: string, ttlMs: number, owner?: string): Promise<void>;
}
