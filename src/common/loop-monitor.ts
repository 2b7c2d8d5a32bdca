import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Running sums of the loop monitor's intervals (ms): their count, sum and sum of squares. */
export interface LoopMark {
  n: number;
  s1: number;
  s2: number;
}

/** The part of Node's `IntervalHistogram` the monitor uses (values in nanoseconds). */
export type LoopHistogram = {
  readonly count: number;
  readonly mean: number;
  readonly stddev: number;
  percentile(p: number): number;
  reset(): void;
  enable(): boolean;
  disable(): boolean;
};

/** Makes the native histogram (tests inject a fake to count and drive it). */
export type LoopHistogramFactory = (resolutionMs: number) => LoopHistogram;

/** The monitor's timer interval (ms): an idle loop records intervals of about this. */
export const RESOLUTION_MS = 10;

const nativeHistogram: LoopHistogramFactory = (resolution) => monitorEventLoopDelay({ resolution });

/**
 * The process's one event-loop delay monitor (`monitorEventLoopDelay`, RESOLUTION_MS), shared by every reader:
 * made and enabled when the first user `use`s it, disabled when the last one `release`s it (or on `shutdown`),
 * enabled again by the next. It serves two views of the same timer:
 *
 * - marks (`mark`): running sums of every interval recorded since the monitor first started, which never go
 *   backwards, so any number of readers measure between marks of their own (the breaker's loop wait);
 * - a window (`window`): the p99 of the intervals since the previous `window` call, which then starts a new
 *   window by resetting the histogram (the rate-limit lock's health source).
 *
 * A reset would lose the histogram's part of the marks, so `window` first folds the histogram's count, sum and
 * sum of squares (from its count, mean and stddev) into running totals: a mark is those totals plus the
 * histogram's current part. Windows are one per process: a second windowed reader would cut the first one's
 * windows short. Today only the health source reads one.
 */
export class LoopMonitor {
  private histogram: LoopHistogram | undefined;
  private readonly users = new Set<object>();
  private readonly folded: LoopMark = { n: 0, s1: 0, s2: 0 };

  constructor(private readonly create: LoopHistogramFactory = nativeHistogram) {}

  /** True while some user holds the monitor (and its timer runs). */
  get running(): boolean {
    return this.users.size > 0;
  }

  /** `user` needs the monitor: the first user starts it (the same user again changes nothing). */
  use(user: object): void {
    if (this.users.has(user)) return;
    this.users.add(user);
    if (this.users.size > 1) return;
    this.histogram ??= this.create(RESOLUTION_MS);
    this.histogram.enable();
  }

  /** `user` is done with it: the last one stops the timer (marks keep their totals). */
  release(user: object): void {
    if (!this.users.delete(user) || this.users.size > 0 || !this.histogram) return;
    this.fold(this.histogram);
    this.histogram.disable();
  }

  /** Stops the timer for every user (process shutdown). */
  shutdown(): void {
    for (const user of [...this.users]) this.release(user);
  }

  /** The running sums now: every interval recorded so far, windows or not. */
  mark(): LoopMark {
    const part = this.histogram ? partOf(this.histogram) : undefined;
    if (!part) return { ...this.folded };
    return {
      n: this.folded.n + part.n,
      s1: this.folded.s1 + part.s1,
      s2: this.folded.s2 + part.s2,
    };
  }

  /**
   * The window since the previous call (or since the monitor started): how many intervals it recorded and their
   * p99 (ms; 0 with none). Starts a new window. For one reader only (see the class).
   */
  window(): { count: number; p99Ms: number } {
    const h = this.histogram;
    if (!h) return { count: 0, p99Ms: 0 };
    const count = h.count;
    const p99Ms = count > 0 ? h.percentile(99) / 1e6 : 0;
    this.fold(h);
    return { count, p99Ms };
  }

  /** Moves the histogram's part of the sums into the totals, and empties it. */
  private fold(h: LoopHistogram): void {
    const part = partOf(h);
    if (part) {
      this.folded.n += part.n;
      this.folded.s1 += part.s1;
      this.folded.s2 += part.s2;
    }
    h.reset();
  }
}

/** A histogram's count, sum and sum of squares (ms), from its count, mean and stddev (ns); none when empty. */
function partOf(h: LoopHistogram): LoopMark | undefined {
  const n = h.count;
  if (n === 0) return undefined;
  const mean = h.mean / 1e6;
  const sd = h.stddev / 1e6;
  return { n, s1: n * mean, s2: n * (sd * sd + mean * mean) };
}

/** The process's one monitor (every reader of this process shares it). */
export const PROCESS_LOOP_MONITOR = new LoopMonitor();
