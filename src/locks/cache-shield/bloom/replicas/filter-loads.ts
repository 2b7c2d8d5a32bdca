import { isUnavailable } from '../../../../redis/redis.errors.js';
import type { FilterSet } from './filter-set.js';

/**
 * Loads this instance's copies from the store: the active build when there
 * is one it can trust, else a build (one instance per filter, under the
 * store's build lock; the others load its bits). One load per filter at a
 * time.
 */
export class FilterLoads {
  private readonly loading = new Map<string, Promise<'loaded' | 'none'>>();

  constructor(private readonly filters: FilterSet) {}

  running(name: string): boolean {
    return this.loading.has(name);
  }

  /** Makes a filter usable: load the active build, or build one (waiting for another instance that builds it). */
  async ensure(name: string): Promise<void> {
    const f = this.filters;
    try {
      if ((await this.reload(name)) === 'loaded' && (await this.trustLoaded(name))) return;
      await f.rebuild(name, f.replica(name).active ? 'stale build' : 'no build yet');
    } catch (err) {
      if (f.closing) return;
      if (!isUnavailable(err)) throw err;
      if (f.replica(name).active) return;
      f.logger.warn(
        `bloom ${name}: store unreachable (${(err as Error).message}); building in this instance only`,
      );
      await f.rebuild(name, 'store unreachable', { detached: true });
    }
  }

  /** Compares the local copy with the store's pointer; reloads or rebuilds when they differ. */
  async ensureCurrent(name: string): Promise<void> {
    const f = this.filters;
    if (f.isBuilding(name) || this.loading.has(name)) return;
    const replica = f.replica(name);
    const pointer = await f.store.pointer(name);
    if (
      replica.detached ||
      pointer.active !== replica.active?.info.version ||
      pointer.seq > replica.seq
    )
      await this.ensure(name);
  }

  /** Loads the active and previous builds from the store (one load per filter at a time). */
  reload(name: string): Promise<'loaded' | 'none'> {
    const running = this.loading.get(name);
    if (running) return running;
    const f = this.filters;
    const replica = f.replica(name);
    const p = (async (): Promise<'loaded' | 'none'> => {
      for (let attempt = 0; attempt < 3; attempt++) {
        replica.beginLoad();
        const loaded = await f.store.load(name).catch((err: unknown) => {
          replica.abortLoad();
          throw err;
        });
        const before = replica.active?.info.version;
        const outcome = replica.finishLoad(loaded);
        if (outcome === 'none') return 'none';
        if (before !== replica.active?.info.version) f.activated(name);
        if (outcome === 'loaded') return 'loaded';
      }
      return 'loaded';
    })().finally(() => this.loading.delete(name));
    this.loading.set(name, p);
    return p;
  }

  /** A loaded build is trusted when it accounts for the product's revision and finds a sample of present keys. */
  private async trustLoaded(name: string): Promise<boolean> {
    const f = this.filters;
    const replica = f.replica(name);
    if ((await f.revision(name)) > replica.explainedRevision()!)
      return f.distrust(name, 'the backend changed since this build');
    let n = 0;
    for await (const key of f.source(name).keys()) {
      if (!replica.has(key)) {
        f.logger.error(
          `bloom ${name} v${replica.active!.info.version}: a present key is reported absent`,
        );
        return f.distrust(name, 'a present key is missing');
      }
      if (++n >= 1_000) break;
    }
    return true;
  }
}
