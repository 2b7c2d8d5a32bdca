import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import type { SendGateStore } from '../gate/send-gate.store.js';
import type { BotStatus } from '../outbound.types.js';
import { BotRouting } from './bot-routing.js';

/** A gate whose status reads are counted and answered when the test says. */
function gate() {
  const reads: ((s: BotStatus | Error) => void)[] = [];
  const g = {
    status: () =>
      new Promise<BotStatus>((ok, fail) =>
        reads.push((s) => (s instanceof Error ? fail(s) : ok(s))),
      ),
  } as unknown as SendGateStore;
  return { g, reads };
}

const bot = { id: 'a', scope: 'default' } as BotConfig;

describe('BotRouting: the bot states it reads', () => {
  it('should make one read for the lanes routed while it is in progress, and keep it refreshMs', async () => {
    const clock = new ManualClock(1_000);
    const { g, reads } = gate();
    const r = new BotRouting([bot], g, clock, 1_000);
    const all = Promise.all(Array.from({ length: 20 }, () => r.status('a')));
    expect(reads).toHaveLength(1);
    reads[0]!({ state: 'active', gen: 3, rotating: false });
    expect((await all).every((s) => s.gen === 3)).toBe(true);
    await r.status('a');
    expect(reads).toHaveLength(1);
    clock.advance(1_000);
    void r.status('a');
    expect(reads).toHaveLength(2);
  });

  it('should not keep a failed read: the next lane reads again', async () => {
    const clock = new ManualClock(1_000);
    const { g, reads } = gate();
    const r = new BotRouting([bot], g, clock, 1_000);
    const first = r.status('a');
    reads[0]!(new Error('redis down'));
    await expect(first).rejects.toThrow('redis down');
    void r.status('a');
    expect(reads).toHaveLength(2);
  });
});
