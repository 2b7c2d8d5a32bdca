import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Clock } from '../../../../common/clock.js';
import type { FilterSource } from '../../cache-shield.filter-source.js';
import type { CacheShieldSettings } from '../../cache-shield.types.js';
import type { BloomStore } from '../../store/bloom-store.js';
import { ADD_LOG_MAX } from '../../store/bloom-store.js';
import {
  BloomValidationError,
  buildSteps,
  type BloomBuildInfo,
  type BuiltFilter,
} from '../filter/bloom-build.js';
import type { FilterReplica, HeldBuild } from '../replicas/filter-replica.js';

export interface BuildDeps {
  store: BloomStore;
  settings: CacheShieldSettings;
  /** The current revision of the product `filter` belongs to. */
  revision(filter: string): Promise<number>;
  /** True once the app is shutting down (a running build stops). */
  closing(): boolean;
  /** Build times; the sample of absent keys that measures the false-positive rate. */
  clock: Clock;
}

/** A build that is active in the store (or only here, `detached`, while the store is unreachable). */
export interface ActivatedBuild {
  held: HeldBuild;
  /** Add sequence the build is active at. */
  seq: number;
  /** The build that was active in the store before (now previous). */
  replaced?: number;
}

/**
 * Builds one version of a filter from its source: every key read, the
 * filter sized, every key checked present (zero false negatives or no
 * activation), the false-positive rate measured on held-out absent keys,
 * then the adds announced during the build replayed into it and the build
 * activated only if no add slipped in between (else replay again).
 */
export class FilterBuilder {
  constructor(private readonly deps: BuildDeps) {}

  async build(
    src: FilterSource,
    replica: FilterReplica,
    detached: boolean,
  ): Promise<ActivatedBuild> {
    const { store, settings, clock } = this.deps;
    const t0 = performance.now();
    // Revision before pointer: an add counted in the pointer's seq cannot be in the revision too.
    const revision = await this.deps.revision(src.name);
    const start = detached ? { seq: replica.seq } : await store.pointer(src.name);
    const startedAt = clock.now();
    const keys = new Set<string>();
    for await (const key of src.keys()) {
      keys.add(key);
      if (keys.size % 5_000 === 0) {
        await yieldToLoop();
        if (this.deps.closing()) throw new Error('shutting down');
      }
    }
    const built = await this.steps(
      buildSteps(keys, settings.targetFpRate, settings.measureSample, () => clock.random()),
    );
    if (built.falseNegatives > 0)
      throw new BloomValidationError(
        `${src.name}: ${built.falseNegatives} of ${keys.size} keys reported absent by the new build`,
      );
    const version = detached
      ? (replica.active?.info.version ?? 0) + 1
      : await store.nextVersion(src.name);
    const info = (): BloomBuildInfo => ({
      filter: src.name,
      version,
      items: keys.size,
      targetP: settings.targetFpRate,
      measuredP: built.measuredP,
      measuredOn: built.measuredOn,
      source: src.source,
      builtAt: new Date(clock.now()).toISOString(),
      buildMs: Math.round(performance.now() - t0),
      m: built.filter.m,
      k: built.filter.k,
      hash: built.filter.hash,
      bytes: built.filter.bits.length,
      revision,
      seq: start.seq,
    });
    if (detached) return { held: { bloom: built.filter, info: info() }, seq: start.seq };
    const ttlMs = settings.bloomTtlDays * 86_400_000;
    for (let attempt = 0; attempt < 5; attempt++) {
      const log = await store.addLog(src.name);
      if (log.length >= ADD_LOG_MAX && log[0]!.seq > start.seq + 1)
        throw new Error(`${src.name}: more adds than the log keeps arrived during the build`);
      let expectSeq = start.seq;
      for (const entry of log) {
        expectSeq = Math.max(expectSeq, entry.seq);
        // Adds after the pointer read, and adds shortly before it that may have become readable after our read.
        if (entry.seq <= start.seq && entry.at < startedAt - settings.addGraceMs) continue;
        for (const k of entry.keys) {
          if (keys.has(k)) continue;
          keys.add(k);
          built.filter.add(k);
        }
      }
      const pointer = await store.pointer(src.name);
      if (pointer.seq !== expectSeq) continue;
      const held = { bloom: built.filter, info: info() };
      replica.beginLoad();
      const res = await store
        .activate(
          { info: held.info, bytes: built.filter.toBytes() },
          pointer.active,
          expectSeq,
          ttlMs,
        )
        .catch((err: unknown) => {
          replica.abortLoad();
          throw err;
        });
      if (res.ok) {
        if (res.displaced !== undefined)
          await store.drop(src.name, res.displaced).catch(() => undefined);
        return { held, seq: expectSeq, replaced: pointer.active };
      }
      replica.abortLoad();
    }
    throw new Error(`${src.name}: adds kept arriving during 5 activation attempts`);
  }

  private async steps(run: Generator<void, BuiltFilter>): Promise<BuiltFilter> {
    for (;;) {
      const step = run.next();
      if (step.done) return step.value;
      await yieldToLoop();
      if (this.deps.closing()) throw new Error('shutting down');
    }
  }
}
