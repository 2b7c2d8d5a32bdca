import type { BloomBuildInfo } from '../filter/bloom-build.js';
import { BloomFilter } from '../filter/bloom-filter.js';
import type { LoadedFilter, StoredBuild } from '../../store/bloom-store.js';

/** A build held in memory. */
export interface HeldBuild {
  bloom: BloomFilter;
  info: BloomBuildInfo;
}

/**
 * This instance's copy of one filter: the active build answers lookups
 * (no network call), the previous one is kept for an instant rollback.
 * Both receive every add. `seq` follows the store's add sequence: an
 * announcement that skips a number means one was missed (reload).
 */
export class FilterReplica {
  active?: HeldBuild;
  previous?: HeldBuild;
  /** Store add sequence this copy includes. */
  seq = 0;
  /** Highest sequence the store gave one of this instance's own adds (its announcement may still be on the way). */
  acked = 0;
  /** Writes made outside this app were seen: lookups answer "maybe" until a rebuild. */
  stale = false;
  /** Keys added since the active build. */
  addedKeys = 0;
  /** Built here while the store was unreachable (not shared yet). */
  detached = false;
  /** Announcements that arrived while a reload was running (applied again after it). */
  private pending: { seq: number; keys: string[] }[] | undefined;

  constructor(readonly name: string) {}

  /** True when lookups may trust the filter. */
  get usable(): boolean {
    return this.active !== undefined && !this.stale;
  }

  /** False = definitely absent from the active build. */
  has(key: string): boolean {
    return this.active === undefined || this.active.bloom.has(key);
  }

  /** Data generation as this copy knows it (changes with every build and add). */
  get gen(): string {
    return `${this.active?.info.version ?? 0}.${this.seq}`;
  }

  /** Backend revision this copy accounts for: the build's revision plus one per add batch since. */
  explainedRevision(): number | undefined {
    return (
      this.active &&
      this.active.info.revision + (Math.max(this.seq, this.acked) - this.active.info.seq)
    );
  }

  addLocal(keys: readonly string[]): void {
    for (const k of keys) {
      this.active?.bloom.add(k);
      this.previous?.bloom.add(k);
    }
  }

  /** Bit positions of `keys` in the active and previous builds, for the store. */
  targets(keys: readonly string[]): { version: number; positions: number[] }[] {
    return [this.active, this.previous].flatMap((b) =>
      b ? [{ version: b.info.version, positions: keys.flatMap((k) => b.bloom.positions(k)) }] : [],
    );
  }

  /** An announced add: `gap` when an earlier announcement was missed (the caller reloads). */
  onAdded(seq: number, keys: readonly string[]): 'applied' | 'old' | 'gap' {
    // Applied at once even while reloading or with a gap: more bits never cause a false negative.
    this.addLocal(keys);
    if (this.pending) this.pending.push({ seq, keys: [...keys] });
    if (seq <= this.seq) return 'old';
    if (seq > this.seq + 1 && !this.pending) return 'gap';
    this.seq = Math.max(this.seq, seq);
    this.addedKeys += keys.length;
    return 'applied';
  }

  /** Starts collecting announcements for a reload. */
  beginLoad(): void {
    this.pending ??= [];
  }

  /**
   * Installs loaded builds and applies again the announcements collected
   * during the load: `none` when the store has no usable build, `gap` when
   * an announcement is still missing (the caller loads again).
   */
  finishLoad(loaded: LoadedFilter): 'loaded' | 'gap' | 'none' {
    const active = hold(loaded.active);
    if (!active) {
      this.pending = undefined;
      return 'none';
    }
    return this.finish(active, hold(loaded.previous), loaded.pointer.seq);
  }

  /** Same as finishLoad, for a build this instance has just activated. */
  finish(active: HeldBuild, previous: HeldBuild | undefined, seq: number): 'loaded' | 'gap' {
    const pending = this.pending ?? [];
    this.pending = undefined;
    this.install(active, previous, seq);
    let gap = false;
    for (const p of pending)
      if (p.seq > this.seq && this.onAdded(p.seq, p.keys) === 'gap') gap = true;
    return gap ? 'gap' : 'loaded';
  }

  /** Abandons a reload (announcements collected stay applied to the current copy). */
  abortLoad(): void {
    this.pending = undefined;
  }

  install(active: HeldBuild, previous: HeldBuild | undefined, seq: number): void {
    this.active = active;
    this.previous = previous;
    this.seq = seq;
    this.stale = false;
    this.addedKeys = 0;
    this.detached = false;
  }

  /** Rollback announced for the build this copy holds as previous: swap without a reload. */
  swap(): void {
    if (!this.previous) return;
    [this.active, this.previous] = [this.previous, this.active];
    this.addedKeys = 0;
  }
}

function hold(b: StoredBuild | undefined): HeldBuild | undefined {
  if (!b) return undefined;
  try {
    return { bloom: BloomFilter.fromBytes(b.bytes), info: b.info };
  } catch {
    // Another hash or format (older release): treated as no build, so it is rebuilt.
    return undefined;
  }
}
