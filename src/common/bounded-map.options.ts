/**
 * What a full map does with a new key when no entry is stale:
 * - `evict-oldest`: drops the least recently written entry (caches: a lost entry only costs a miss);
 * - `refuse`: keeps every live entry and refuses the new key (state whose loss would weaken a
 *   defence: a bucket that has not refilled, an unexpired nonce, a revoked key).
 */
export type WhenFull = 'evict-oldest' | 'refuse';

export interface BoundedMapOptions<V> {
  /** Store label of the metrics (`rampart_memory_store_entries{store=…}`). */
  store: string;
  /** Most entries held at once (0: the map holds nothing). */
  maxEntries: number;
  whenFull: WhenFull;
  /**
   * True when dropping `v` at `now` changes no answer (expired, refilled): dropped from the oldest end as
   * new keys come, by sweeps, and first when the map is full. Without it nothing expires.
   */
  expired?: (v: V, now: number) => boolean;
  /**
   * True when a full map may drop `v` for a new key although it has not expired, because losing it never
   * makes an answer more lenient (e.g. a risk record without score: its subject is judged as new again).
   * Defaults to `expired`.
   */
  evictable?: (v: V, now: number) => boolean;
  /**
   * Who filled `v` (e.g. the app that asked). With it, a full map that must drop a live entry for
   * `evict-oldest` drops the least recently written entry of the share holding the most entries (the new
   * key's share counted with it), not the oldest of all: a share that floods the map pushes out its own
   * entries, never those of a share holding fewer. Stale entries still go first, whoever filled them.
   * Shares should be few (app ids, not subjects): choosing a victim walks them.
   */
  shareOf?: (v: V) => string;
}
