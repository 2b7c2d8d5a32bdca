import type { BreakerOptions, BreakerPhase, CallOutcome } from '../circuit-breaker.types.js';
import { OpossumWindow, type WindowThresholds } from './opossum-window.js';

/** What the slow-call window hands opossum for a slow call: a failure (the caller still gets its answer). */
class SlowCall extends Error {
  constructor() {
    super('slow call');
    this.name = 'SlowCall';
  }
}
const SLOW = new SlowCall();

/**
 * The slow-call rule (Sentinel's slow-request ratio): opossum has no slow-call
 * option and judges only errors, so a second opossum window is fed every
 * finished call after the fact, a slow one (≥ slowCallMs, or a timeout) as a
 * failure. Its threshold is the slow-call share (opossum opens strictly above
 * its percentage; a hair below slowCallRatio makes that "at or above"), its
 * volume threshold `minimumVolume`; its rolling window is the breaker's. The
 * caller's answer is never touched: only the count.
 */
export class SlowCallWindow {
  private readonly window: OpossumWindow;

  constructor(name: string, options: BreakerOptions, onOpen: () => void) {
    this.window = new OpossumWindow(`${name}:slow`, options, onOpen, SLOW_RULE);
  }

  /** Whether a call that ended with `outcome` after `ms` milliseconds is slow under `options`. */
  static slow(options: BreakerOptions, outcome: CallOutcome, ms: number): boolean {
    return options.slowCallMs > 0 && (outcome === 'timeout' || ms >= options.slowCallMs);
  }

  /** Counts one finished call (only calls that reached the backend: success, failure, timeout). */
  record(options: BreakerOptions, outcome: CallOutcome, ms: number): void {
    if (options.slowCallMs <= 0) return;
    if (outcome !== 'success' && outcome !== 'failure' && outcome !== 'timeout') return;
    const slow = SlowCallWindow.slow(options, outcome, ms);
    this.window
      .fire(() => (slow ? Promise.reject(SLOW) : Promise.resolve()))
      .catch(() => undefined);
  }

  get stats(): { calls: number; slow: number } {
    const s = this.window.stats;
    return { calls: s.fires, slow: s.failures };
  }

  retune(options: BreakerOptions): void {
    this.window.retune(options);
  }

  clear(): void {
    this.window.clear();
  }

  follow(from: BreakerPhase, to: BreakerPhase): void {
    this.window.follow(from, to);
  }

  shutdown(): void {
    this.window.shutdown();
  }
}

const SLOW_RULE = (o: BreakerOptions): WindowThresholds => ({
  errorThresholdPercentage: o.slowCallRatio * 100 - 1e-9,
  volumeThreshold: o.minimumVolume,
});
