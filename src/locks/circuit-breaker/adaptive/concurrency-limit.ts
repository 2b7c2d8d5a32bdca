import type { Clock } from '../../../common/clock.js';
import type { BreakerOptions, CallOutcome } from '../circuit-breaker.types.js';
import { adaptiveOptions } from './adaptive-options.js';
import type { AdaptiveOptions, LimitSnapshot } from './adaptive.types.js';
import { GradientLimit } from './gradient-limit.js';
import { type LoopMark, type LoopWait, PROCESS_LOOP_WAIT } from './loop-wait.js';

/** What a finished call tells the limit: an RTT sample, a drop (overload), or nothing. */
export type LimitSignal = 'sample' | 'drop' | 'ignore';

/**
 * Which calls feed the limit (the research note's rules): a success is a sample; a timeout or an overload
 * answer of the backend (429, 503) is a drop; anything else is ignored — a fast error or a client error
 * would bias the RTT low, a caller that went away says nothing.
 */
export function limitSignal(outcome: CallOutcome, status?: number): LimitSignal {
  if (outcome === 'success') return 'sample';
  if (outcome === 'timeout' || status === 429 || status === 503) return 'drop';
  return 'ignore';
}

/**
 * A backend's limit on calls in flight: `capacity` (the fixed bulkhead), or
 * the adaptive GradientLimit within it when the backend opted in. Times from
 * the injected Clock; RTTs are measured by the caller from dispatch; what our
 * own event loop added to them over each window, by `loop`.
 */
export class ConcurrencyLimit {
  private gradient: GradientLimit | undefined;
  private adaptive: AdaptiveOptions | undefined;
  /** Where the current window's loop wait is measured from. */
  private mark: LoopMark | undefined;
  /** The loop's wait since the last mark: read only when a call closes a window. */
  private readonly ownWait = (): number => this.loop.since(this.mark!);

  constructor(
    private options: BreakerOptions,
    private readonly clock: Clock,
    private readonly loop: LoopWait = PROCESS_LOOP_WAIT,
  ) {
    this.retune(options);
  }

  /** True when the adaptive limit is on. */
  get isAdaptive(): boolean {
    return this.gradient !== undefined;
  }

  /** Calls allowed in flight now. */
  get limit(): number {
    return this.gradient
      ? Math.min(this.gradient.limit, this.options.capacity)
      : this.options.capacity;
  }

  retune(options: BreakerOptions): void {
    this.options = options;
    const next = adaptiveOptions(options.adaptive, options.capacity);
    if (!next) this.gradient = undefined;
    else if (this.gradient) this.gradient.retune(next);
    else this.gradient = new GradientLimit(next);
    this.adaptive = next;
  }

  /** One finished call: `signal` from limitSignal(), `rttMs` from dispatch, `inFlight` when it started. */
  record(signal: LimitSignal, rttMs: number, inFlight: number): boolean {
    if (!this.gradient || signal === 'ignore') return false;
    const now = this.clock.now();
    this.mark ??= this.loop.mark();
    const moved =
      signal === 'sample'
        ? this.gradient.sample(rttMs, inFlight, now, this.ownWait)
        : this.gradient.drop(inFlight, now);
    if (moved) this.mark = this.loop.mark();
    return moved;
  }

  /** The adaptive limit's state (undefined when off). */
  snapshot(): (LimitSnapshot & { minLimit: number; maxLimit: number }) | undefined {
    if (!this.gradient || !this.adaptive) return undefined;
    const s = this.gradient.snapshot(this.clock.now());
    return {
      ...s,
      limit: this.limit,
      minLimit: this.adaptive.minLimit,
      maxLimit: this.adaptive.maxLimit,
    };
  }
}
