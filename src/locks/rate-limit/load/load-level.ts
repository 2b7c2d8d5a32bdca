import type { LockChain } from '../../../chain/lock-chain.service.js';
import type { Clock } from '../../../common/clock.js';
import type { LoadSettings, LoadState } from '../core/load.types.js';
import type { QuotaMetrics } from '../quota.metrics.js';
import { HealthHold } from './health-hold.js';
import type { HealthSource } from './health-source.js';
import { type LoadView, loadView } from './load-view.js';

/**
 * The load level of this instance: the shared level (bucket fill, held or pinned) as last
 * computed, raised to this instance's own health, and shown in the metrics on each refresh.
 * Plain class: the LoadMonitor makes one and decides when to refresh it.
 */
export class LoadLevel {
  /** The level requests are decided with. */
  current: LoadState = { level: 'normal', fill: 0, reason: 'pressure', at: 0 };
  /** The shared level (bucket fill, held or pinned) as last computed. */
  shared: Omit<LoadState, 'at'> = { level: 'normal', fill: 0, reason: 'pressure' };
  /** A level raised by this instance's health, held here only. */
  private readonly healthHold = new HealthHold();

  constructor(
    private readonly chain: LockChain,
    private readonly m: QuotaMetrics,
    private readonly settings: { readonly load: LoadSettings },
    private readonly clock: Clock,
    private readonly health: HealthSource,
  ) {}

  /** Recomputes `current` from `shared` and this instance's health now, and shows it. */
  refresh(): LoadState {
    const now = this.clock.now();
    const health = this.health.read(this.settings.load.pollMs);
    // The shared level raised to this instance's health (never above it by a pin: a pin is final).
    this.current = this.healthHold.apply(this.shared, health, now, this.settings.load);
    const view = this.view();
    this.m.show(
      view.level,
      view.fill,
      Object.fromEntries(view.policies.map((p) => [p.policy, p.action])),
      this.current.health,
    );
    return this.current;
  }

  /**
   * Whether this instance's own health read soft or above within `load.hold` (every reading counts, even one
   * a request never saw: a cool reading right after a hot one does not end the hold).
   */
  ownHealthHot(): boolean {
    return this.healthHold.hot(this.clock.now());
  }

  /** Whether this instance's health is an input of the level (read even on an idle tick). */
  healthOn(): boolean {
    const s = this.settings.load;
    return s.eventLoopDelay !== undefined || s.admittedP99 !== undefined;
  }

  /** The level and every policy's action at it. */
  view(): LoadView {
    return loadView(this.current, this.chain.current().policies, this.settings.load);
  }
}
