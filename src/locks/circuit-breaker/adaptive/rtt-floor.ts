/**
 * The lowest value added since a moving cut-off time (a sliding-window
 * minimum): a monotonic queue whose values increase from front to back, so
 * adding and reading are O(1) amortised and it holds only the values that
 * can still become the minimum.
 */
export class RttFloor {
  private readonly at: number[] = [];
  private readonly values: number[] = [];
  private head = 0;

  /** Adds `value` seen at `now` (times must not go backwards). */
  add(now: number, value: number): void {
    while (this.values.length > this.head && this.values[this.values.length - 1]! >= value) {
      this.values.pop();
      this.at.pop();
    }
    this.values.push(value);
    this.at.push(now);
  }

  /** Forgets every value (the backend's latency was re-based). */
  clear(): void {
    this.values.length = 0;
    this.at.length = 0;
    this.head = 0;
  }

  /** The lowest value added at or after `since`; undefined when none. */
  min(since: number): number | undefined {
    while (this.head < this.values.length && this.at[this.head]! < since) this.head++;
    if (this.head > 64 && this.head * 2 > this.values.length) {
      this.values.splice(0, this.head);
      this.at.splice(0, this.head);
      this.head = 0;
    }
    return this.head < this.values.length ? this.values[this.head] : undefined;
  }
}
