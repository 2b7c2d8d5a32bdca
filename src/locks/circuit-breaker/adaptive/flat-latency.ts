/** One judged window above the floor: its peak calls in flight and its average RTT (milliseconds). */
interface Point {
  inFlight: number;
  rttMs: number;
}

/** Windows remembered per episode (the bound): the oldest goes first. */
export const MAX_POINTS = 16;

/**
 * Tells a backend that got slower from a backend our calls overload. The floor (the unloaded minimum RTT) is
 * remembered for `minRttWindowMs`; a backend that got 10× slower for 20 s would keep the limit at its minimum the
 * whole time, refusing calls it could serve. Envoy re-measures its minimum at pinned low concurrency for this
 * reason; here the windows the limit judges anyway are the measurement. While the latency is above the floor
 * (an episode), each window is a point; when a window had at most half the calls in flight of an earlier point of
 * the episode and the same latency (the earlier one at most `1 + tolerance` times it), the latency does not
 * follow our concurrency: it is the backend's own, and the caller re-bases the floor to it. A backend that
 * queues our calls answers faster when they halve (processor sharing: twice as fast), so it is never re-based.
 */
export class FlatLatency {
  private points: Point[] = [];

  /** A window above the floor; true when its latency is the backend's own (the floor should be re-based). */
  above(inFlight: number, rttMs: number, tolerance: number): boolean {
    const flat =
      inFlight > 0 &&
      this.points.some((p) => p.inFlight >= 2 * inFlight && p.rttMs <= rttMs * (1 + tolerance));
    if (flat) {
      this.points = [];
      return true;
    }
    this.points.push({ inFlight, rttMs });
    if (this.points.length > MAX_POINTS) this.points.shift();
    return false;
  }

  /** The latency is back within the floor's tolerance: the episode ends. */
  clear(): void {
    this.points = [];
  }
}
