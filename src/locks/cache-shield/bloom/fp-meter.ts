/**
 * The false-positive rate of a filter as measured on live traffic since its
 * build became active: of the lookups for keys that turned out absent (the
 * filter said "definitely absent", or said "maybe" and the answer was
 * empty), the share the filter let through.
 */
export class FpMeter {
  private negatives = 0;
  private falsePositives = 0;
  private warnedAt = -Infinity;

  /** The filter said "definitely absent". */
  trueNegative(): void {
    this.negatives++;
  }

  /** The filter said "maybe" and the answer was empty. */
  falsePositive(): void {
    this.negatives++;
    this.falsePositives++;
  }

  reset(): void {
    this.negatives = 0;
    this.falsePositives = 0;
  }

  get samples(): number {
    return this.negatives;
  }

  /** Measured rate (0–1), or null before any absent key was seen. */
  get rate(): number | null {
    return this.negatives === 0 ? null : this.falsePositives / this.negatives;
  }

  /** True when the rate drifted above `factor` × target on enough samples (at most once per `everyMs`). */
  drifted(
    target: number,
    factor: number,
    minSamples: number,
    now: number,
    everyMs = 60_000,
  ): boolean {
    const rate = this.rate;
    if (
      rate === null ||
      this.negatives < minSamples ||
      rate <= factor * target ||
      now - this.warnedAt < everyMs
    )
      return false;
    this.warnedAt = now;
    return true;
  }
}
