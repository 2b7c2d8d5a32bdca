/**
 * The cache shield's admin port: the contract between the admin API and this lock.
 *
 * A lock module that wants admin endpoints provides an object under the
 * token (`{ provide: BLOOM_ADMIN, useExisting: BloomService }`). The admin
 * module finds it app-wide (the provider does not need to be exported or
 * global). While no provider exists the matching endpoints answer
 * 404 problem+json `lock_not_installed`.
 *
 * Methods throw a `ProblemException` for anything the caller did wrong
 * (unknown filter, unknown version, build refused by validation); it reaches
 * the admin client unchanged. Any other error becomes a 500. Results are
 * returned to the admin client as JSON: never put secrets in them.
 */

/** Injection token of the cache shield's BloomAdminPort. */
export const BLOOM_ADMIN = Symbol('BLOOM_ADMIN');

/** One build of one Bloom filter. */
export interface BloomBuildInfo {
  /** Monotonic build number of this filter. */
  version: number;
  /** Items the build was made from. */
  items: number;
  /** False-positive rate the filter was sized for, 0–1. */
  targetFp: number;
  /** False-positive rate measured by sampling before activation, 0–1; null when not measured. */
  measuredFp: number | null;
  /** Where the items came from, e.g. `sqlite:search_terms`. Never user input. */
  source: string;
  /** ISO time the build finished. */
  builtAt: string;
}

/** A Bloom filter as the admin API shows it. */
export interface BloomFilterStatus {
  /** Filter name, e.g. `search-terms`, `item-ids`. */
  name: string;
  /** The active build; null while none was built yet. */
  active: BloomBuildInfo | null;
  /** The build a rollback returns to; null when there is none. */
  previous: BloomBuildInfo | null;
  /** True while a rebuild of this filter runs. */
  building: boolean;
}

/**
 * Implemented by the cache-shield lock. Rebuilds and rollbacks must reach
 * every instance by themselves (the filter lives in Redis or each instance
 * reloads the active build); the admin API only calls this port on the
 * instance that received the request and audits the outcome.
 */
export interface BloomAdminPort {
  /** Every filter, with its active and previous builds. */
  status(): Promise<BloomFilterStatus[]>;
  /**
   * Builds a new version of `filter` (every filter when omitted) from the
   * authoritative source, validates it by sampling, and activates it
   * atomically, keeping the old one for rollback. Resolves when the new
   * build is active; a build that fails validation is not activated and
   * rejects with a 4xx/5xx ProblemException explaining why.
   */
  rebuild(filter?: string): Promise<BloomFilterStatus[]>;
  /**
   * Activates an earlier build of `filter` (every filter when omitted):
   * `version` when given, else the previous build. Rejects with a 404
   * ProblemException when there is no such build.
   */
  rollback(filter?: string, version?: number): Promise<BloomFilterStatus[]>;
}
