import { Logger } from '@nestjs/common';
import type { LoadSettings, LoadState } from '../core/load.types.js';
import type { StoreLanes } from '../store/lanes/store-lanes.js';
import type { GlobalBucket, LoadStore } from '../store/load/load-store.js';

/**
 * The shared load level computed by this instance's own call (LoadMonitor.poll): from the Redis store while the
 * store lane is remote, else from the memory store. A failure is logged once per failing spell and gives
 * undefined: the level stays as last computed until the next poll reaches the store. Plain class: the
 * LoadMonitor makes one.
 */
export class LoadPoll {
  private readonly logger = new Logger('LoadMonitor');
  private failing = false;

  constructor(
    private readonly lanes: StoreLanes,
    private readonly store: LoadStore,
    private readonly memory: LoadStore,
    private readonly settings: { readonly load: LoadSettings },
    private readonly globals: () => GlobalBucket[],
  ) {}

  async compute(): Promise<Omit<LoadState, 'at'> | undefined> {
    const lane = this.lanes.current();
    const store = lane?.remote ? this.store : this.memory;
    try {
      const got = await store.compute(
        `rl:${this.lanes.tag}:load`,
        this.globals(),
        this.settings.load,
      );
      this.failing = false;
      return got;
    } catch (err) {
      if (!this.failing) this.logger.warn(`load level not computed: ${(err as Error).message}`);
      this.failing = true;
      return undefined;
    }
  }
}
