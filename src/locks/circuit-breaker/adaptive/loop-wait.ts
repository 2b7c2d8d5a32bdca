import {
  type LoopMark,
  type LoopMonitor,
  PROCESS_LOOP_MONITOR,
  RESOLUTION_MS,
} from '../../../common/loop-monitor.js';

export { type LoopMark, RESOLUTION_MS };

/** This process's own event-loop wait, between two marks (tests inject a fixed one). */
export interface LoopWait {
  mark(): LoopMark;
  /** Milliseconds an event arriving at a random instant since `from` waited, on average, for the event loop. */
  since(from: LoopMark): number;
}

/**
 * The wait Node's event loop adds to a backend's answer, from `monitorEventLoopDelay` (the process's one 10 ms
 * timer, shared through LoopMonitor, whose marks never go backwards, so any number of breakers read it between
 * their own marks). Each interval d of the timer is r (RESOLUTION_MS) plus how late it fired, ℓ = d − r: the rest
 * of a busy spell (a flood's requests, a GC) that was running when it was due. An answer arriving during such a
 * spell waits the rest of it, on average half: Σℓ² ÷ 2Σd over the intervals. Against messages a worker thread posted at random instants (spells of 2–100 ms,
 * real waits of 1–46 ms) it was within 10 % of the real wait for spells of 20 ms and more, and 0.55–0.85× of it for
 * shorter ones; never above it by more than 0.4 ms. Low is the safe side: a wait over-estimated would let a
 * backend that really got slower pass for our own loop (the mean lateness, the obvious other measure, read
 * 1.3–2.2× the real wait).
 */
export class NodeLoopWait implements LoopWait {
  constructor(private readonly monitor: LoopMonitor = PROCESS_LOOP_MONITOR) {}

  /** The first mark starts the monitor for good (a breaker may read it at any time). */
  mark(): LoopMark {
    this.monitor.use(this);
    return this.monitor.mark();
  }

  since(from: LoopMark): number {
    return waitBetween(from, this.mark());
  }
}

/** The wait between two marks (see NodeLoopWait), ms; 0 when the timer did not fire in between. */
export function waitBetween(from: LoopMark, to: LoopMark, r = RESOLUTION_MS): number {
  const n = to.n - from.n;
  const s1 = to.s1 - from.s1;
  if (n <= 0 || s1 <= 0) return 0;
  return Math.max(0, to.s2 - from.s2 - 2 * r * s1 + r * r * n) / (2 * s1);
}

/** One monitor for the process (started by the first adaptive limit that reads it). */
export const PROCESS_LOOP_WAIT: LoopWait = new NodeLoopWait();
