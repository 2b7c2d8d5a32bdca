import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { MetricsService } from '../../../metrics/metrics.service.js';
import type { AnyReply } from '../../../http/http-context.js';
import type { BucketSpec } from '../core/decision.types.js';
import { validateSettings } from '../rate-limit.settings.js';
import { Pacer, type PaceTimer } from './pacer.js';
import { PacingMetrics } from './pacing.metrics.js';

/** A timer that fires only when told to. */
class ManualTimer implements PaceTimer {
  readonly pending = new Map<number, () => void>();
  private n = 0;
  after(_ms: number, fn: () => void): () => void {
    const id = ++this.n;
    this.pending.set(id, fn);
    return () => this.pending.delete(id);
  }
  fireAll(): void {
    for (const [id, fn] of [...this.pending]) {
      this.pending.delete(id);
      fn();
    }
  }
}

const paced = (): BucketSpec[] => [
  {
    key: 'k',
    kind: 'g',
    capacity: 1,
    intervalUs: 1e6,
    cost: 1,
    shadow: false,
    soft: false,
    degradable: false,
    group: 'g',
    maxWaitUs: 2e6,
  },
];
/** A reply whose raw response is an emitter (`close` when the client goes away). */
const reply = (): { r: AnyReply; res: EventEmitter & { destroyed: boolean } } => {
  const res = Object.assign(new EventEmitter(), { destroyed: false });
  return { r: { raw: res } as unknown as AnyReply, res };
};

function make(maxPaced: number, maxPacedPerApp = maxPaced) {
  const timer = new ManualTimer();
  const settings = { ...validateSettings({}).settings, maxPaced, maxPacedPerApp };
  return { timer, pacer: new Pacer(settings, new PacingMetrics(new MetricsService()), timer) };
}

describe(Pacer.name, () => {
  it('should hold at most maxPaced requests, and decide the next one without its wait', () => {
    const { pacer } = make(1);
    expect(pacer.enter(paced(), 'a')).toBe('held');
    const second = paced();
    expect(pacer.enter(second, 'a')).toBe('full');
    expect(second[0]!.maxWaitUs).toBe(0);
    expect(pacer.waitOf(second[0]!)).toBe(2e6);
    pacer.leave('held', 'a');
    expect(pacer.enter(paced(), 'a')).toBe('held');
    // A request without a paced rule takes no place.
    expect(pacer.enter([{ ...paced()[0]!, maxWaitUs: undefined }], 'a')).toBe('none');
  });

  it('should hold at most maxPacedPerApp requests of one app, and keep the other places for other apps', async () => {
    const { pacer, timer } = make(4, 2);
    expect(pacer.enter(paced(), 'hostile')).toBe('held');
    expect(pacer.enter(paced(), 'hostile')).toBe('held');
    // The hostile app has its share: its next paced request is decided without a place (503 pacing_full).
    expect(pacer.enter(paced(), 'hostile')).toBe('full');
    expect(pacer.enter(paced(), 'hostile')).toBe('full');
    // Another app still gets a place, and so do requests without an app.
    expect(pacer.enter(paced(), 'shop')).toBe('held');
    expect(pacer.enter(paced(), '')).toBe('held');
    expect(pacer.size).toBe(4);
    // A held request of the hostile app that ends gives its place back to that app.
    const { r } = reply();
    const held = pacer.hold(r, 1000, 'p', 'hostile');
    timer.fireAll();
    await expect(held).resolves.toBe(true);
    pacer.leave('held', 'shop');
    expect(pacer.enter(paced(), 'hostile')).toBe('held');
    expect(pacer.enter(paced(), 'hostile')).toBe('full');
  });

  it('should let a held request go when its time has come, and give its place back', async () => {
    const { pacer, timer } = make(1);
    const { r } = reply();
    pacer.enter(paced(), 'a');
    const held = pacer.hold(r, 1000, 'p', 'a');
    expect(pacer.size).toBe(1);
    timer.fireAll();
    await expect(held).resolves.toBe(true);
    expect(pacer.size).toBe(0);
  });

  it('should cancel the wait when the client goes away, and give the place back', async () => {
    const { pacer, timer } = make(1);
    const { r, res } = reply();
    pacer.enter(paced(), 'a');
    const held = pacer.hold(r, 1000, 'p', 'a');
    res.emit('close');
    await expect(held).resolves.toBe(false);
    expect(timer.pending.size).toBe(0);
    expect(pacer.size).toBe(0);
  });
});
