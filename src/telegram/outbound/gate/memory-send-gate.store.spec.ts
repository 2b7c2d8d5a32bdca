import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { MemorySendGateStore } from './memory-send-gate.store.js';
import type { ChargeRequest } from './send-gate.store.js';

const aimd = { backoff: 0.5, recoverPerSecond: 2 };
let n = 0;
const req = (o: Partial<ChargeRequest> = {}): ChargeRequest => ({
  bot: 'b',
  chatId: String(++n),
  method: 'sendMessage',
  weight: 1,
  sendId: `s${n}`,
  inflightMs: 5_000,
  buckets: { bot: { perSecond: 10, burst: 1 }, chat: { perSecond: 1, burst: 1 } },
  maxWaitMs: 10_000,
  aimd,
  ...o,
});

/** The slots handed to `k` reservations made at the same instant, ms apart. */
async function spacing(g: MemorySendGateStore, k = 3): Promise<number[]> {
  const waits: number[] = [];
  for (let i = 0; i < k; i++) {
    const c = await g.charge(req());
    if (c.kind !== 'ok') throw new Error(JSON.stringify(c));
    waits.push(c.waitMs);
  }
  return waits.slice(1).map((w, i) => w - waits[i]!);
}

describe('MemorySendGateStore pacing', () => {
  it("should hand out slots one interval apart from a new bot's first send, never a burst, and refuse past maxWaitMs", async () => {
    const clock = new ManualClock();
    const g = new MemorySendGateStore(clock);
    // A new bot (no warm-up: the departure window keeps a cold start's first calls from bunching) sends at 10/s.
    expect(await spacing(g)).toEqual([100, 100]);
    clock.advance(3_000); // idle: still one interval apart, never a burst
    expect(await spacing(g, 4)).toEqual([100, 100, 100]);
    expect(await g.charge(req({ maxWaitMs: 300 }))).toMatchObject({ kind: 'wait', bucket: 'bot' });
  });

  it('should pace slower after a 429 and recover to the full rate once 429s stop (AIMD)', async () => {
    const clock = new ManualClock();
    const g = new MemorySendGateStore(clock);
    await spacing(g);
    clock.advance(5_000);
    expect(await spacing(g)).toEqual([100, 100]);
    const cap = { cap: 10, ...aimd };
    await g.cooldown('b', undefined, 1_000, cap);
    // A 429 of a send already in flight, inside the cooldown: no second cut.
    await g.cooldown('b', undefined, 1_000, cap);
    expect(await g.charge(req())).toMatchObject({ kind: 'wait', why: 'cooldown' });
    clock.advance(1_000);
    expect(await spacing(g)).toEqual([200, 200]); // 10/s × 0.5 = 5/s
    clock.advance(5_000); // 5/s + 2/s per second × 5 s ≥ 10/s: back to the cap
    expect(await spacing(g)).toEqual([100, 100]);
  });

  it('should count an answered send in the departure window from its answer (its latest possible arrival)', async () => {
    const clock = new ManualClock();
    const g = new MemorySendGateStore(clock);
    expect(await g.depart('b', 's1', 1_000, 1, 60_000)).toEqual({ kind: 'go' });
    clock.advance(600); // its answer came 600 ms after it left: it may have arrived that late
    await g.release('b', 's1', 'ok');
    clock.advance(500);
    expect(await g.depart('b', 's2', 1_000, 1, 60_000)).toEqual({ kind: 'full', ms: 501 });
    clock.advance(501);
    expect(await g.depart('b', 's2', 1_000, 1, 60_000)).toEqual({ kind: 'go' });
  });
});
