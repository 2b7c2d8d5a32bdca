import type { AdaptiveOptions, LimitSnapshot } from './adaptive.types.js';
import { FlatLatency } from './flat-latency.js';
import { RttFloor } from './rtt-floor.js';

/** Multiplied into the limit when a window saw a drop (a timeout, an overload answer): AIMD's backoff. */
export const DROP_BACKOFF = 0.9;

/**
 * A gradient concurrency limit in the style of Netflix's Gradient2 and
 * Envoy's adaptive concurrency filter, with what the research note adds
 * (docs/circuit-breaker.md#adaptive-concurrency):
 *
 *   gradient = clamp((minRtt + own) × (1 + tolerance) ÷ sampleRtt, 0.5, 2)
 *   target   = gradient × L + √(gradient × L)            (Envoy's headroom)
 *   L'       = target when gradient ≥ 1 (growing), else (1 − smoothing) × L + smoothing × target;
 *              within [minLimit, maxLimit]
 *
 * sampleRtt is the average RTT of one window (≥ windowMs and ≥ windowSamples
 * calls), minRtt the lowest window average of the last minRttWindowMs, own
 * the wait our own event loop added to each call of the window (LoopWait). A
 * window with a drop cuts L by DROP_BACKOFF instead; a window that never used
 * half the limit does not raise it (app-limited), but may lower it.
 * Pure: no timers, no clock; every call passes its time.
 */
export class GradientLimit {
  private value: number;
  private readonly floor = new RttFloor();
  private readonly flat = new FlatLatency();
  private windowStart: number | undefined;
  private count = 0;
  private sum = 0;
  private maxInFlight = 0;
  private dropped = false;
  private own: number | (() => number) = 0;
  private last: Omit<LimitSnapshot, 'limit'> = {};

  constructor(private options: AdaptiveOptions) {
    this.value = clamp(options.initialLimit, options.minLimit, options.maxLimit);
  }

  /** The limit in force: whole calls in flight. */
  get limit(): number {
    return Math.floor(this.value);
  }

  snapshot(now: number): LimitSnapshot {
    const minRttMs = this.floor.min(now - this.options.minRttWindowMs);
    return { ...this.last, limit: this.limit, ...(minRttMs !== undefined ? { minRttMs } : {}) };
  }

  /** New options: the limit is kept, within the new bounds. */
  retune(options: AdaptiveOptions): void {
    this.options = options;
    this.value = clamp(this.value, options.minLimit, options.maxLimit);
  }

  /**
   * One finished call: `rttMs` from dispatch to the end, `inFlight` the calls in flight when it started,
   * `now` epoch ms, `own` what this process's own event loop added to a call of this window so far (LoopWait):
   * a number, or a function read only when this call closes the window (reading the loop monitor costs a few µs,
   * a window closes once in many calls). Returns true when it closed a window (the limit may have moved).
   */
  sample(rttMs: number, inFlight: number, now: number, own: number | (() => number) = 0): boolean {
    this.windowStart ??= now;
    this.own = own;
    this.count++;
    this.sum += rttMs;
    this.maxInFlight = Math.max(this.maxInFlight, inFlight);
    return this.judge(now);
  }

  /** One call that was dropped (timed out, or refused by the backend as overloaded): the window backs off. */
  drop(inFlight: number, now: number): boolean {
    this.windowStart ??= now;
    this.dropped = true;
    this.maxInFlight = Math.max(this.maxInFlight, inFlight);
    return this.judge(now);
  }

  private judge(now: number): boolean {
    const o = this.options;
    const samples = this.count;
    if (now - this.windowStart! < o.windowMs || (samples < o.windowSamples && !this.dropped))
      return false;
    const L = this.value;
    let next = L;
    if (samples > 0) {
      const sampleRtt = this.sum / samples;
      this.floor.add(now, sampleRtt);
      const expected = this.rebased(now, sampleRtt);
      const gradient = clamp((expected * (1 + o.tolerance)) / Math.max(sampleRtt, 1e-3), 0.5, 2);
      this.last = { sampleRttMs: sampleRtt, gradient };
      const appLimited = this.maxInFlight * 2 < L;
      if (!(appLimited && gradient >= 1)) {
        const target = gradient * L + Math.sqrt(gradient * L);
        // Up at once (as Envoy; one judgement a window is slow enough), down smoothed (an outlier is no cut).
        next = gradient >= 1 ? target : (1 - o.smoothing) * L + o.smoothing * target;
      }
    }
    if (this.dropped) next = Math.min(next, L * DROP_BACKOFF);
    this.value = clamp(next, o.minLimit, o.maxLimit);
    this.windowStart = undefined;
    this.count = this.sum = this.maxInFlight = 0;
    this.own = 0;
    this.dropped = false;
    return true;
  }

  /**
   * The latency this window should have had: the floor plus what our own event loop added to each call (no limit
   * on backend calls shortens that), or this window's RTT when it is the backend's own (FlatLatency).
   */
  private rebased(now: number, sampleRtt: number): number {
    const o = this.options;
    const minRtt = this.floor.min(now - o.minRttWindowMs) ?? sampleRtt;
    const expected = minRtt + (typeof this.own === 'function' ? this.own() : this.own);
    if (sampleRtt <= expected * (1 + o.tolerance)) {
      this.flat.clear();
      return expected;
    }
    if (!this.flat.above(this.maxInFlight, sampleRtt, o.tolerance)) return expected;
    this.floor.clear();
    this.floor.add(now, sampleRtt);
    return sampleRtt;
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
