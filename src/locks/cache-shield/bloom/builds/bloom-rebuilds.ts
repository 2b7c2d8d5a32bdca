import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShieldProblem, shieldProblem } from '../../cache-shield.problems.js';
import type { FilterSet } from '../replicas/filter-set.js';
import type { FilterBuilder } from './filter-builder.js';

/**
 * Who builds, and when: one build per filter at a time in this instance,
 * and one instance at a time under the store's build lock. An instance that
 * finds the lock taken waits for the other's build and loads it; if none
 * comes within `buildWaitMs` it builds after all.
 */
export class BloomRebuilds {
  private readonly building = new Map<string, Promise<void>>();
  private readonly owner = randomUUID();

  constructor(
    private readonly filters: FilterSet,
    private readonly builder: FilterBuilder,
  ) {}

  running(name: string): boolean {
    return this.building.has(name);
  }

  rebuild(
    name: string,
    reason: string,
    opts: { detached?: boolean; admin?: boolean },
  ): Promise<void> {
    const running = this.building.get(name);
    if (running) return running;
    const p = this.run(name, reason, opts).finally(() => this.building.delete(name));
    this.building.set(name, p);
    return p;
  }

  private async run(
    name: string,
    reason: string,
    opts: { detached?: boolean; admin?: boolean },
  ): Promise<void> {
    const { store, metrics } = this.filters;
    const replica = this.filters.replica(name);
    const detached = opts.detached ?? false;
    const claimed = detached || (await this.claimOrWait(name, opts.admin ?? false));
    if (!claimed) return;
    try {
      const out = await this.builder.build(this.filters.source(name), replica, detached);
      if (detached) {
        replica.install(out.held, replica.active, out.seq);
        replica.detached = true;
      } else if (replica.active?.info.version === out.replaced) {
        // The build replaced the one held here: keep that one as previous, with every add it received.
        if (replica.finish(out.held, replica.active, out.seq) === 'gap')
          await this.filters.reload(name);
      } else {
        replica.abortLoad();
        await this.filters.reload(name);
      }
      metrics.builds.inc({ filter: name, result: 'activated' });
      metrics.buildSeconds.set({ filter: name }, out.held.info.buildMs / 1000);
      this.filters.activated(name, reason);
    } catch (err) {
      metrics.builds.inc({
        filter: name,
        result: err instanceof Error && err.name === 'BloomValidationError' ? 'refused' : 'failed',
      });
      throw err;
    } finally {
      if (!detached) await store.releaseBuild(name, this.owner).catch(() => undefined);
    }
  }

  /** True once this instance holds the build lock; false when another instance activated a build meanwhile. */
  private async claimOrWait(name: string, admin: boolean): Promise<boolean> {
    const { store, settings, clock } = this.filters;
    const deadline = clock.now() + settings.buildWaitMs;
    const before = this.filters.replica(name).active?.info.version;
    for (;;) {
      if (await store.claimBuild(name, this.owner, settings.buildLockMs)) return true;
      if (admin)
        throw shieldProblem(
          ShieldProblem.BuildInProgress,
          `Another instance is building ${name}; try again when it is done`,
        );
      const pointer = await store.pointer(name);
      if (pointer.active !== undefined && pointer.active !== before) {
        await this.filters.reload(name);
        return false;
      }
      if (this.filters.closing) return false;
      if (clock.now() > deadline) {
        this.filters.logger.warn(
          `bloom ${name}: no build from the instance holding the lock within ${settings.buildWaitMs} ms; building here`,
        );
        return true;
      }
      await sleep(250);
    }
  }
}
