/**
 * Time and randomness, injected (token `CLOCK`) so that tests drive them.
 * Every lock and store reads the time through a Clock, never `Date.now()`.
 */
export interface Clock {
  /** Epoch milliseconds (may be fractional). */
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
}

/** Injection token of the service's Clock (provided app-wide by CommonModule). */
export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => Date.now(), random: () => Math.random() };

/** A clock that only moves when told to (tests); `random` is a fixed sequence when given. */
export class ManualClock implements Clock {
  private i = 0;

  constructor(
    private ms = 1_800_000_000_000,
    private readonly randoms: readonly number[] = [0.5],
  ) {}

  now(): number {
    return this.ms;
  }

  random(): number {
    return this.randoms[this.i++ % this.randoms.length]!;
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }
}
