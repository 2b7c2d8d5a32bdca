import {
  LOAD_LEVELS,
  type HealthSample,
  type LoadSettings,
  type LoadState,
  healthLevelOf,
} from '../core/load.types.js';

const rank = (l: LoadState['level']): number => LOAD_LEVELS.indexOf(l);

/**
 * A level raised by this instance's own health (event-loop delay, p99 of admitted requests),
 * held `holdMs` here only: it raises the shared level, never above a pin (a pin is final).
 */
export class HealthHold {
  private held: {
    level: LoadState['level'];
    reason: 'event_loop' | 'latency';
    until: number;
  } = { level: 'normal', reason: 'event_loop', until: 0 };

  /** Whether a health reading at soft or above was taken within `holdMs` of `now` (epoch ms). */
  hot(now: number): boolean {
    return this.held.level !== 'normal' && now <= this.held.until;
  }

  /** The shared level raised to the health read now (`health`), as of `now` (epoch ms). */
  apply(
    shared: Omit<LoadState, 'at'>,
    health: HealthSample,
    now: number,
    s: LoadSettings,
  ): LoadState {
    const wanted = healthLevelOf(health, s);
    if (wanted.reason && (this.held.until <= now || rank(wanted.level) >= rank(this.held.level)))
      this.held = { level: wanted.level, reason: wanted.reason, until: now + s.holdMs };
    const out: LoadState = { ...shared, at: now };
    if (s.eventLoopDelay || s.admittedP99) out.health = health;
    const held = this.held;
    if (s.pin === undefined && held.until >= now && rank(held.level) > rank(out.level)) {
      out.level = held.level;
      out.reason = held.reason;
    }
    return out;
  }
}
