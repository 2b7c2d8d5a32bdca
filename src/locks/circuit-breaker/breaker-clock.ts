/** Time and randomness of the breaker, injected so tests drive them. */
export interface BreakerClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
}

export const systemBreakerClock: BreakerClock = {
  now: () => Date.now(),
  random: () => Math.random(),
};
