import CircuitBreaker from 'opossum';
import type { BreakerOptions, BreakerPhase } from '../circuit-breaker.types.js';
import { classifyError, isFailure } from './call-outcome.js';

/** opossum's own reset timer must never fire: recovery is the RecoveryGate's (setTimeout's largest delay). */
const NEVER_MS = 2_147_483_647;

/** The thresholds an opossum instance judges its window by. */
export interface WindowThresholds {
  /** opossum opens when failures ÷ calls × 100 is strictly above this. */
  errorThresholdPercentage: number;
  volumeThreshold: number;
}

/** The error rule: failures over the error threshold (the breaker's own options). */
export const ERROR_RULE = (o: BreakerOptions): WindowThresholds => ({
  errorThresholdPercentage: o.errorThresholdPercentage,
  volumeThreshold: o.volumeThreshold,
});

/** The window options opossum reads besides the thresholds; a change needs a new opossum instance. */
const WINDOW_KEYS = ['rollingCountTimeoutMs', 'rollingCountBuckets'] as const;

type Run = () => Promise<unknown>;
type Opossum = CircuitBreaker<[Run], unknown>;

const counting = (p: BreakerPhase): boolean => p === 'closed' || p === 'recovering';

/**
 * The part of a breaker opossum does: the rolling window of calls, the error
 * and volume thresholds and the error filter that decide `closed → open`.
 * It never times out (our timeout aborts the call) and never resets by itself.
 * Replaced by a new instance when its options change (keeping the window's
 * counts) or when traffic comes back (a clean window).
 */
export class OpossumWindow {
  private cb: Opossum;
  /** An admin force keeps the circuit closed: opossum only passes calls on. */
  private forcedClosed = false;

  constructor(
    private readonly name: string,
    private options: BreakerOptions,
    /** The error rate went over the threshold. */
    private readonly onOpen: () => void,
    /** What opossum's thresholds are made of (the slow-call window feeds slow calls as failures). */
    private readonly rule: (o: BreakerOptions) => WindowThresholds = ERROR_RULE,
  ) {
    this.cb = this.create();
  }

  get stats(): CircuitBreaker.Stats {
    return this.cb.stats;
  }

  fire<T>(run: () => Promise<T>): Promise<T> {
    return this.cb.fire(run) as Promise<T>;
  }

  /** New options; a new opossum (keeping the window) only when one that opossum reads changed. */
  retune(options: BreakerOptions): void {
    const old = this.options;
    this.options = options;
    const [a, b] = [this.rule(old), this.rule(options)];
    const changed =
      WINDOW_KEYS.some((k) => old[k] !== options[k]) ||
      a.errorThresholdPercentage !== b.errorThresholdPercentage ||
      a.volumeThreshold !== b.volumeThreshold;
    if (changed) this.replace(true);
  }

  /** Starts from a clean window (an admin reset), so failures from before cannot open the circuit again. */
  clear(): void {
    this.replace(false);
  }

  /** Follows the breaker's phase changes: a clean window when traffic comes back, no judging while forced closed. */
  follow(from: BreakerPhase, to: BreakerPhase): void {
    this.forcedClosed = to === 'forced_closed';
    // Traffic comes back: start from a clean window, so failures from before the outage cannot reopen it.
    if (counting(to) && !counting(from)) this.replace(false);
    if (this.forcedClosed) this.cb.disable();
  }

  shutdown(): void {
    this.cb.shutdown();
  }

  private replace(keepWindow: boolean): void {
    const old = this.cb;
    this.cb = this.create(keepWindow ? old.stats : undefined);
    if (this.forcedClosed) this.cb.disable();
    old.shutdown();
  }

  private create(stats?: CircuitBreaker.Stats): Opossum {
    const o = this.options;
    const window = {
      rollingCountTimeout: o.rollingCountTimeoutMs,
      rollingCountBuckets: o.rollingCountBuckets,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    };
    const cb: Opossum = new CircuitBreaker((run: Run) => run(), {
      name: this.name,
      timeout: false, // ours: per call, aborts the call, ignores committed streams
      resetTimeout: NEVER_MS,
      ...this.rule(o),
      errorFilter: (err: unknown) => !isFailure(classifyError(err)),
      ...window,
      ...(stats ? { status: CircuitBreaker.newStatus({ ...window, stats }) } : {}),
    });
    cb.on('open', () => this.onOpen());
    return cb;
  }
}
