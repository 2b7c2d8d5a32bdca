import { Inject, Injectable, Optional } from '@nestjs/common';
import { type AnyReply, rawResponse } from '../../../http/http-context.js';
import type { BucketSpec } from '../core/decision.types.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { PacingMetrics } from './pacing.metrics.js';

/** Injection token of the pacer's timer (tests drive it; default: Node timers). */
export const PACE_TIMER = Symbol('PACE_TIMER');

/** A cancellable timer: calls `fn` after `ms` milliseconds; the returned function cancels it. */
export interface PaceTimer {
  after(ms: number, fn: () => void): () => void;
}

export const nodeTimer: PaceTimer = {
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/**
 * A place among the requests held at once: `none` (no paced rule), `held` (a place taken before the decision),
 * `full` (no place: the decision was made without pacing, so nothing was reserved for a wait).
 */
export type PacePlace = 'none' | 'held' | 'full';

/**
 * Holds paced requests (docs/rate-limit.md#paced-bursts): at most `rateLimit.maxPaced` at once on this
 * instance, and at most `rateLimit.maxPacedPerApp` of one app (`app`: the verified appId, '' unsigned), so one
 * app cannot take every place. A place is taken BEFORE the decision, so the bound is exact; a request that turns out not to wait
 * gives it back at once. The wait is a timer cancelled when the client goes away; its reserved slot stays spent.
 */
@Injectable()
export class Pacer {
  private waiting = 0;
  /** Places held per app (an app with none has no entry). */
  private readonly perApp = new Map<string, number>();
  private readonly timer: PaceTimer;
  /** The waits enter() took off the buckets of a decision made without a place (pacedVerdict reads them). */
  private readonly unpaced = new WeakMap<BucketSpec, number>();

  constructor(
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    private readonly m: PacingMetrics,
    @Optional() @Inject(PACE_TIMER) timer?: PaceTimer,
  ) {
    this.timer = timer ?? nodeTimer;
  }

  /** Requests holding a place now (waiting, or being decided with pacing). */
  get size(): number {
    return this.waiting;
  }

  /**
   * Before a decision: a place when a bucket paces. With none left, the buckets lose their wait (decided as
   * unpaced rules: admitted now or refused, nothing reserved ahead) and the place is `full`.
   */
  enter(buckets: BucketSpec[], app: string): PacePlace {
    if (!buckets.some((b) => (b.maxWaitUs ?? 0) > 0)) return 'none';
    const mine = this.perApp.get(app) ?? 0;
    if (this.waiting >= this.settings.maxPaced || mine >= this.settings.maxPacedPerApp) {
      for (const b of buckets)
        if (b.maxWaitUs) {
          this.unpaced.set(b, b.maxWaitUs);
          b.maxWaitUs = 0;
        }
      return 'full';
    }
    this.perApp.set(app, mine + 1);
    this.m.waiting.set(++this.waiting);
    return 'held';
  }

  /** The wait µs a bucket's rule has (0: none), also when enter() took it off for want of a place. */
  waitOf(b: BucketSpec): number {
    return b.maxWaitUs || this.unpaced.get(b) || 0;
  }

  /** Gives a place back (the request does not wait, or its decision failed). */
  leave(place: PacePlace, app: string): void {
    if (place !== 'held') return;
    const mine = (this.perApp.get(app) ?? 1) - 1;
    if (mine > 0) this.perApp.set(app, mine);
    else this.perApp.delete(app);
    this.m.waiting.set(--this.waiting);
  }

  /** Counts a request refused for want of a place (503 `pacing_full`). */
  full(policy: string): void {
    this.m.paced.inc({ policy, outcome: 'full' });
  }

  /**
   * Holds a request that took a place for `ms` milliseconds, then gives the place back. True when the time has
   * passed, false when the client went away first (the timer is cancelled; the reserved slot stays spent).
   */
  hold(reply: AnyReply, ms: number, policy: string, app: string): Promise<boolean> {
    const res = rawResponse(reply);
    return new Promise<boolean>((resolve) => {
      const done = (passed: boolean): void => {
        res.off('close', gone);
        cancel();
        this.leave('held', app);
        this.m.paced.inc({ policy, outcome: passed ? 'passed' : 'client_gone' });
        if (passed) this.m.wait.observe({ policy }, ms / 1000);
        resolve(passed);
      };
      const gone = (): void => done(false);
      const cancel = this.timer.after(ms, () => done(true));
      if (res.destroyed) done(false);
      else res.once('close', gone);
    });
  }
}
