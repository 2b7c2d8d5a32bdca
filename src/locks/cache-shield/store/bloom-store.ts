/**
 * Where the Bloom builds live and how instances hear about changes: one
 * interface, a Redis store (shared by every instance) and a memory store
 * (one instance). Both pass the table in test/support/shield-bloom-store.table.ts.
 *
 * Per filter: numbered builds (bits + info), a pointer {active, previous,
 * seq}, a log of add batches, and a build lock. `seq` grows by one with
 * every add batch, in the same atomic step that sets the bits and announces
 * the batch, so an instance that sees seq jump knows it missed something.
 */
import type { BloomBuildInfo } from '../bloom/filter/bloom-build.js';

export const BLOOM_STORE = Symbol('BLOOM_STORE');

/** A build as stored: its info and its filter in binary form (`BloomFilter.toBytes()`). */
export interface StoredBuild {
  info: BloomBuildInfo;
  bytes: Buffer;
}

export interface BloomPointer {
  active?: number;
  previous?: number;
  /** Add batches applied to this filter so far. */
  seq: number;
}

/** The active and previous builds of a filter (their bits include every add up to at least `pointer.seq`). */
export interface LoadedFilter {
  pointer: BloomPointer;
  active?: StoredBuild;
  previous?: StoredBuild;
}

export interface AddLogEntry {
  seq: number;
  /** Epoch milliseconds of the add. */
  at: number;
  keys: string[];
}

export type BloomEvent =
  | { type: 'activated'; filter: string; version: number; seq: number }
  | { type: 'added'; filter: string; seq: number; keys: string[] }
  /** The event stream was interrupted (reconnect): every instance should compare with the store. */
  | { type: 'resync' };

/** An add batch, with the bit positions of its keys in each build the caller holds. */
export interface AddRequest {
  filter: string;
  keys: string[];
  /** The caller's active build (first) and previous build, with positions of `keys` in each. */
  targets: { version: number; positions: number[] }[];
  at: number;
}

export type AddResult = { ok: true; seq: number } | { ok: false; pointer: BloomPointer };

export type ActivateResult =
  { ok: true; displaced?: number } | { ok: false; pointer: BloomPointer };

export interface BloomStore {
  /** True when other instances share this store. */
  readonly shared: boolean;
  /** Takes the build lock of a filter for `ttlMs`; false when another owner holds it. */
  claimBuild(filter: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseBuild(filter: string, owner: string): Promise<void>;
  /** A new, never used version number for a filter. */
  nextVersion(filter: string): Promise<number>;
  pointer(filter: string): Promise<BloomPointer>;
  load(filter: string): Promise<LoadedFilter>;
  /** The add log, oldest first (the last {@link ADD_LOG_MAX} batches). */
  addLog(filter: string): Promise<AddLogEntry[]>;
  /**
   * Stores `build` and makes it active, the active one becoming previous,
   * only when the pointer still is {active: expectActive, seq: expectSeq};
   * announces it. `displaced` is the build that is no longer kept.
   */
  activate(
    build: StoredBuild,
    expectActive: number | undefined,
    expectSeq: number,
    ttlMs: number,
  ): Promise<ActivateResult>;
  /** Swaps active and previous when the pointer is still {active, previous} as given; announces it. */
  rollback(
    filter: string,
    expect: { active: number; previous: number },
    ttlMs: number,
  ): Promise<ActivateResult>;
  /** Sets the bits of an add batch in the builds the caller holds (refused when they are no longer active/previous), logs and announces it. */
  add(req: AddRequest, ttlMs: number): Promise<AddResult>;
  /** Deletes a build that is no longer active or previous. */
  drop(filter: string, version: number): Promise<void>;
  /** Resolves once the listener will receive every later announcement; returns the unsubscribe function. */
  subscribe(listener: (event: BloomEvent) => void): Promise<() => void>;
}

/** Add batches kept per filter for builds to replay. */
export const ADD_LOG_MAX = 10_000;
