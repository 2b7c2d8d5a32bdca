/** Time source, injected so tests use a fixed clock. */
export interface Clock {
  /** Epoch milliseconds (may be fractional). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to (tests). */
export class ManualClock implements Clock {
  constructor(private ms = 1_800_000_000_000) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
