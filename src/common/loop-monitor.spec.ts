import { describe, expect, it, vi } from 'vitest';
import {
  NodeLoopWait,
  PROCESS_LOOP_WAIT,
  waitBetween,
} from '../locks/circuit-breaker/adaptive/loop-wait.js';
import { NodeHealthSource } from '../locks/rate-limit/load/health-source.js';
import { type LoopHistogram, type LoopMark, LoopMonitor } from './loop-monitor.js';

/** Counts the native monitors made in this process (the real ones, still made and enabled). */
const native = vi.hoisted(() => ({ made: 0 }));
vi.mock('node:perf_hooks', async (original) => {
  const real = await original<typeof import('node:perf_hooks')>();
  return {
    ...real,
    monitorEventLoopDelay: (options?: { resolution?: number }) => {
      native.made++;
      return real.monitorEventLoopDelay(options);
    },
  };
});

/** A histogram that records the intervals it is told (ms), as Node's does (values in ns, population stddev). */
class FakeHistogram implements LoopHistogram {
  values: number[] = [];
  enabled = false;

  record(...ms: number[]): void {
    if (this.enabled) this.values.push(...ms);
  }
  get count(): number {
    return this.values.length;
  }
  get mean(): number {
    return this.count ? (this.values.reduce((a, b) => a + b, 0) / this.count) * 1e6 : NaN;
  }
  get stddev(): number {
    const m = this.mean / 1e6;
    const v = this.values.reduce((a, d) => a + (d - m) ** 2, 0) / this.count;
    return this.count ? Math.sqrt(v) * 1e6 : NaN;
  }
  percentile(p: number): number {
    const sorted = [...this.values].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((sorted.length * p) / 100) - 1)]! * 1e6;
  }
  reset(): void {
    this.values = [];
  }
  enable(): boolean {
    return !this.enabled && (this.enabled = true);
  }
  disable(): boolean {
    return this.enabled && !(this.enabled = false);
  }
}

/** A monitor over fake histograms, and every histogram its factory made. */
function monitor(): { m: LoopMonitor; made: FakeHistogram[] } {
  const made: FakeHistogram[] = [];
  const m = new LoopMonitor(() => {
    made.push(new FakeHistogram());
    return made.at(-1)!;
  });
  return { m, made };
}

function expectNotBehind(later: LoopMark, earlier: LoopMark): void {
  expect(later.n).toBeGreaterThanOrEqual(earlier.n);
  expect(later.s1).toBeGreaterThanOrEqual(earlier.s1 - 1e-9);
  expect(later.s2).toBeGreaterThanOrEqual(earlier.s2 - 1e-9);
}

describe(LoopMonitor.name, () => {
  it('should make one native monitor for the process, whichever of its readers starts first', () => {
    const health = new NodeHealthSource();
    health.start({ eventLoop: true, latency: false });
    PROCESS_LOOP_WAIT.mark();
    const other = new NodeHealthSource();
    other.start({ eventLoop: true, latency: false });
    expect(health.read(250).eventLoopMs).toBeGreaterThanOrEqual(0);
    expect(native.made).toBe(1);
    health.onApplicationShutdown();
    other.onApplicationShutdown();
  });

  it('should give the breaker and the health source one native monitor, started by the first of them', () => {
    const { m, made } = monitor();
    const wait = new NodeLoopWait(m);
    const health = new NodeHealthSource(m);
    wait.mark();
    health.start({ eventLoop: true, latency: false });
    wait.mark();
    expect(made).toHaveLength(1);
    expect(made[0]!.enabled).toBe(true);
    made[0]!.record(10, 12, 40);
    expect(health.read(250).eventLoopMs).toBe(40);
    expect(wait.mark().n).toBe(3); // the breaker saw the intervals the health window reset away
  });

  it('should never move marks backwards when the windowed reader resets, nor change the wait between them', () => {
    const { m, made } = monitor();
    const wait = new NodeLoopWait(m);
    const from = wait.mark();
    const h = made[0]!;
    h.record(...Array<number>(50).fill(10), 210);
    const before = m.mark();
    expect(m.window()).toEqual({ count: 51, p99Ms: 210 });
    const after = m.mark();
    expectNotBehind(after, before);
    expect(after.n).toBe(before.n);
    h.record(...Array<number>(30).fill(10));
    const to = wait.mark();
    expectNotBehind(to, after);
    expect(m.window()).toEqual({ count: 30, p99Ms: 10 });
    // one 200 ms stall among 81 intervals, measured across the two windows as if nothing had been reset
    expect(wait.since(from)).toBeCloseTo(200 ** 2 / (2 * 1_010), 5);
    expect(waitBetween(from, to)).toBeCloseTo(200 ** 2 / (2 * 1_010), 5);
  });

  it('should stop the timer when its last user leaves, keep the marks, and start it again for the next', () => {
    const { m, made } = monitor();
    const a = {};
    const b = {};
    m.use(a);
    m.use(b);
    made[0]!.record(10, 20);
    m.release(a);
    expect(made[0]!.enabled).toBe(true);
    const kept = m.mark();
    m.release(b);
    expect(made[0]!.enabled).toBe(false);
    expect(m.running).toBe(false);
    expect(m.mark()).toEqual(kept);
    m.use(a);
    made[0]!.record(30);
    expect(m.mark()).toMatchObject({ n: 3, s1: 60 });
    m.shutdown();
    expect(made[0]!.enabled).toBe(false);
    expect(made).toHaveLength(1);
  });

  it('should release the health source on shutdown, and leave the timer to the breaker still reading it', () => {
    const { m, made } = monitor();
    const health = new NodeHealthSource(m);
    health.start({ eventLoop: true, latency: false });
    new NodeLoopWait(m).mark();
    health.onApplicationShutdown();
    expect(made[0]!.enabled).toBe(true);
    const alone = monitor();
    const h2 = new NodeHealthSource(alone.m);
    h2.start({ eventLoop: true, latency: false });
    h2.onApplicationShutdown();
    expect(alone.made[0]!.enabled).toBe(false);
  });
});
