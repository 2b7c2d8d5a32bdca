import type { Clock } from '../../../../common/clock.js';
import { used } from '../../core/rule-kinds.js';
import type { MemoryRateLimitStore } from '../memory-rate-limit.store.js';
import { GlobalBucket, LEVEL_CODES, LEVEL_OF, LoadStore } from './load-store.js';
import { levelOf, type LoadSettings, type LoadState } from '../../core/load.types.js';

/** The load level of a service without Redis: the memory store's global buckets, the held level in process. */
export class MemoryLoadStore implements LoadStore {
  private held = { level: 0, until: 0 };

  constructor(
    private readonly store: MemoryRateLimitStore,
    private readonly clock: Clock,
  ) {}

  compute(
    _levelKey: string,
    buckets: readonly GlobalBucket[],
    s: LoadSettings,
  ): Promise<Omit<LoadState, 'at'>> {
    const nowMs = this.clock.now();
    let fill = 0;
    let source: string | undefined;
    for (const b of buckets) {
      const u = used(
        { ...b, cost: 1, shadow: false, soft: false, degradable: false, group: '' },
        this.store.peek(b.key),
        nowMs * 1000,
      );
      if (u > fill) {
        fill = u;
        source = b.policy;
      }
    }
    const at = { fill: Math.round(fill * 1e6) / 1e6, ...(source ? { source } : {}) };
    if (s.pin !== undefined) return Promise.resolve({ level: s.pin, reason: 'pinned', ...at });
    const raw = LEVEL_CODES[levelOf(fill, s)];
    const held = this.held.until > nowMs ? this.held.level : 0;
    if (raw > 0 && raw >= held && s.holdMs > 0) this.held = { level: raw, until: nowMs + s.holdMs };
    return Promise.resolve(
      held > raw
        ? { level: LEVEL_OF[held]!, reason: 'held', ...at }
        : { level: LEVEL_OF[raw]!, reason: 'pressure', ...at },
    );
  }
}
