import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import { FairQueue } from './fair-queue.js';

const WIDE = { max: 1_000, maxPerApp: 1_000 };

function drain(q: FairQueue<string>, now = 0): string[] {
  const out: string[] = [];
  for (let next = q.shift(now); next; next = q.shift(now)) out.push(next.item);
  return out;
}

describe(FairQueue.name, () => {
  it('should serve apps in turn, so a backlog of one app does not starve another that came later', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 6; i++) q.push('A', 1, `a${i}`, 0, WIDE);
    q.push('B', 1, 'b1', 0, WIDE);
    q.push('B', 1, 'b2', 0, WIDE);
    expect(drain(q)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4', 'a5', 'a6']);
    expect(q.length).toBe(0);
  });

  it('should keep arrival order within one app', () => {
    const q = new FairQueue<string>();
    for (const x of ['x1', 'x2', 'x3']) q.push('X', 1, x, 0, WIDE);
    expect(drain(q)).toEqual(['x1', 'x2', 'x3']);
  });

  it('should give a heavier tier more turns per round (deficit round robin)', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 4; i++) q.push('pro', 2, `p${i}`, 0, WIDE);
    for (let i = 1; i <= 4; i++) q.push('free', 1, `f${i}`, 0, WIDE);
    expect(drain(q)).toEqual(['p1', 'p2', 'f1', 'p3', 'p4', 'f2', 'f3', 'f4']);
  });

  it('should refuse past maxWaitingPerApp while another app still gets in, and past maxWaiting for anyone', () => {
    const q = new FairQueue<string>();
    const b = { max: 4, maxPerApp: 3 };
    for (let i = 1; i <= 3; i++) expect(q.push('A', 1, `a${i}`, 0, b).queued).toBe(true);
    // Hostile app A: its lane is full; it cannot take the room left for others.
    expect(q.push('A', 1, 'a4', 0, b)).toEqual({
      queued: false,
      why: 'app_full',
      place: { position: 4, length: 3 },
    });
    expect(q.push('B', 1, 'b1', 0, b)).toEqual({
      queued: true,
      place: { position: 2, length: 4 },
    });
    expect(q.push('C', 1, 'c1', 0, b)).toMatchObject({ queued: false, why: 'full' });
    expect(drain(q)).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('should estimate a newcomer place by the rounds ahead of it', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 5; i++) q.push('A', 1, `a${i}`, 0, WIDE);
    // B's first call goes right after A's head; B's second after A's second.
    expect(q.push('B', 1, 'b1', 0, WIDE)).toMatchObject({ place: { position: 2, length: 6 } });
    expect(q.push('B', 1, 'b2', 0, WIDE)).toMatchObject({ place: { position: 4, length: 7 } });
    expect(q.push('A', 1, 'a6', 0, WIDE)).toMatchObject({ place: { position: 8, length: 8 } });
  });

  it('should tell how long the served item waited, by the clock passed in', () => {
    const clock = new ManualClock(1_000);
    const q = new FairQueue<string>();
    q.push('A', 1, 'a1', clock.now(), WIDE);
    clock.advance(250);
    expect(q.shift(clock.now())).toEqual({ item: 'a1', app: 'A', waitedMs: 250 });
    expect(q.shift(clock.now())).toBeUndefined();
  });

  it('should take out an item that gave up, and forget an empty lane without losing the turn order', () => {
    const q = new FairQueue<string>();
    q.push('A', 1, 'a1', 0, WIDE);
    q.push('A', 1, 'a2', 0, WIDE);
    q.push('B', 1, 'b1', 0, WIDE);
    q.push('C', 1, 'c1', 0, WIDE);
    expect(q.shift(0)?.item).toBe('a1');
    expect(q.remove('b1')).toBe(true);
    expect(q.remove('b1')).toBe(false);
    expect(q.waitingOf('B')).toBe(0);
    expect(drain(q)).toEqual(['c1', 'a2']);
  });
});
