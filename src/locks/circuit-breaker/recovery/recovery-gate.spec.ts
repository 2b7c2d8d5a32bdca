import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../common/clock.js';
import type { Admission, BreakerPhase } from '../circuit-breaker.types.js';
import { RecoveryGate } from './recovery-gate.js';

class TestClock implements Clock {
  ms = 1_800_000_000_000;
  constructor(public r = 0.5) {}
  now(): number {
    return this.ms;
  }
  random(): number {
    return this.r;
  }
}

const TIMING = {
  resetTimeoutMs: 10_000,
  resetJitter: 0.2,
  halfOpenProbes: 3,
  rampPercents: [10, 50],
  rampMs: 20_000,
};

function setup(timing: Partial<typeof TIMING> = {}, random = 0.5) {
  const clock = new TestClock(random);
  const moves: string[] = [];
  const gate = new RecoveryGate(
    { ...TIMING, ...timing },
    clock,
    (from: BreakerPhase, to: BreakerPhase) => moves.push(`${from}→${to}`),
  );
  return { clock, gate, moves };
}

function probeEpoch(a: Admission): number {
  if (!a.admit || !a.probe) throw new Error(`expected a probe, got ${JSON.stringify(a)}`);
  return a.probe.epoch;
}

/** Admitted calls out of n. */
function admitted(gate: RecoveryGate, n: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (gate.admit().admit) count++;
  return count;
}

describe(RecoveryGate.name, () => {
  it('should admit everything while closed', () => {
    const { gate } = setup();
    expect(admitted(gate, 100)).toBe(100);
    expect(gate.phase).toBe('closed');
  });

  it('should refuse while open, with the time until the probe, and go half-open when the reset timeout is over', () => {
    const { gate, clock, moves } = setup({}, 0.5); // factor 1: exactly resetTimeoutMs
    gate.tripped();
    expect(gate.admit()).toEqual({ admit: false, reason: 'open', retryAfterMs: 10_000 });
    clock.ms += 9_999;
    expect(gate.admit()).toEqual({ admit: false, reason: 'open', retryAfterMs: 1 });
    clock.ms += 1;
    expect(probeEpoch(gate.admit())).toBeGreaterThan(0);
    expect(moves).toEqual(['closed→open', 'open→half_open']);
  });

  it('should jitter the reset timeout by ±resetJitter from the injected randomness', () => {
    for (const [random, expected] of [
      [0, 8_000],
      [0.25, 9_000],
      [0.999_999_999, 12_000],
    ] as const) {
      const { gate, clock } = setup({}, random);
      gate.tripped();
      expect(gate.msUntilProbe()).toBe(expected);
      clock.ms += expected - 1;
      expect(gate.admit().admit).toBe(false);
      clock.ms += 1;
      expect(gate.admit().admit).toBe(true);
    }
  });

  it('should admit one probe at a time and need halfOpenProbes successes before ramping', () => {
    const { gate, clock } = setup();
    gate.tripped();
    clock.ms += 10_000;
    for (let i = 0; i < 3; i++) {
      const epoch = probeEpoch(gate.admit());
      expect(gate.admit()).toEqual({ admit: false, reason: 'half_open', retryAfterMs: 1_000 });
      expect(gate.phase).toBe('half_open');
      gate.probeDone(epoch, 'success');
    }
    expect(gate.phase).toBe('recovering');
  });

  it('should reopen with a fresh jittered timeout when a probe fails', () => {
    const { gate, clock, moves } = setup();
    gate.tripped();
    clock.ms += 10_000;
    gate.probeDone(probeEpoch(gate.admit()), 'success');
    clock.r = 0;
    gate.probeDone(probeEpoch(gate.admit()), 'failure');
    expect(gate.phase).toBe('open');
    expect(gate.msUntilProbe()).toBe(8_000);
    expect(moves).toEqual(['closed→open', 'open→half_open', 'half_open→open']);
  });

  it('should let a neutral probe (client went away) free the slot without counting', () => {
    const { gate, clock } = setup({ halfOpenProbes: 1 });
    gate.tripped();
    clock.ms += 10_000;
    gate.probeDone(probeEpoch(gate.admit()), 'neutral');
    expect(gate.phase).toBe('half_open');
    gate.probeDone(probeEpoch(gate.admit()), 'success');
    expect(gate.phase).toBe('recovering');
  });

  it('should ignore the result of a probe from an earlier phase', () => {
    const { gate, clock } = setup({ halfOpenProbes: 1 });
    gate.tripped();
    clock.ms += 10_000;
    const stale = probeEpoch(gate.admit());
    gate.force('open');
    gate.force(undefined);
    gate.probeDone(stale, 'success');
    expect(gate.phase).toBe('half_open');
  });

  it('should ramp 10 % → 50 % → 100 % over rampMs, spreading admissions evenly', () => {
    const { gate, clock, moves } = setup({ halfOpenProbes: 1 });
    gate.tripped();
    clock.ms += 10_000;
    gate.probeDone(probeEpoch(gate.admit()), 'success');
    expect(gate.admittedShare()).toBe(0.1);
    expect(admitted(gate, 100)).toBe(10);
    const refusal = gate.admit();
    expect(refusal).toMatchObject({ admit: false, reason: 'recovering', retryAfterMs: 10_000 });
    clock.ms += 10_000;
    expect(gate.admittedShare()).toBe(0.5);
    expect(admitted(gate, 100)).toBe(50);
    clock.ms += 9_999;
    expect(gate.phase).toBe('recovering');
    clock.ms += 1;
    expect(admitted(gate, 100)).toBe(100);
    expect(gate.phase).toBe('closed');
    expect(moves.slice(-2)).toEqual(['half_open→recovering', 'recovering→closed']);
  });

  it('should close at once after the probes when the ramp is empty', () => {
    const { gate, clock } = setup({ halfOpenProbes: 1, rampPercents: [] });
    gate.tripped();
    clock.ms += 10_000;
    gate.probeDone(probeEpoch(gate.admit()), 'success');
    expect(gate.phase).toBe('closed');
  });

  it('should open again when opossum trips during the ramp', () => {
    const { gate, clock } = setup({ halfOpenProbes: 1 });
    gate.tripped();
    clock.ms += 10_000;
    gate.probeDone(probeEpoch(gate.admit()), 'success');
    gate.tripped();
    expect(gate.phase).toBe('open');
  });

  it('should refuse everything while forced open, until the force is lifted, then probe', () => {
    const { gate, clock } = setup();
    const until = clock.ms + 5_500;
    gate.force('open', until);
    expect(gate.admit()).toEqual({ admit: false, reason: 'forced_open', retryAfterMs: 5_500 });
    gate.tripped();
    expect(gate.phase).toBe('forced_open');
    gate.force(undefined);
    expect(gate.phase).toBe('half_open');
    expect(gate.admit()).toMatchObject({ admit: true, probe: {} });
  });

  it('should admit everything while forced closed and come back closed when lifted', () => {
    const { gate } = setup();
    gate.tripped();
    gate.force('closed');
    gate.tripped();
    expect(admitted(gate, 10)).toBe(10);
    gate.force(undefined);
    expect(gate.phase).toBe('closed');
  });

  it('should close at once on reset, but not override a force', () => {
    const { gate } = setup();
    gate.tripped();
    gate.reset();
    expect(gate.phase).toBe('closed');
    gate.force('open');
    gate.reset();
    expect(gate.phase).toBe('forced_open');
  });

  it('should keep its phase and clocks when retuned', () => {
    const { gate, clock } = setup();
    gate.tripped();
    gate.retune({ ...TIMING, resetTimeoutMs: 1_000, halfOpenProbes: 1 });
    expect(gate.msUntilProbe()).toBe(10_000);
    clock.ms += 10_000;
    gate.probeDone(probeEpoch(gate.admit()), 'success');
    expect(gate.phase).toBe('recovering');
  });
});
