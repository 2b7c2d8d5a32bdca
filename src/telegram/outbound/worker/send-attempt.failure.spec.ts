import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import { OUTBOUND_DEFAULTS } from '../outbound.settings.js';
import type { Lease, Settlement } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';
import { BotPacing } from './bot-pacing.js';
import { SendAttempt } from './send-attempt.js';

const bot = { id: 'a', scope: 'default' } as BotConfig;

/** Parts whose gate's departure check fails (`depart`: Redis down or slow), recording the settlements. */
function parts(depart: () => Promise<unknown>) {
  const settled: Settlement[] = [];
  const sent: unknown[] = [];
  const noop = { inc: () => undefined, observe: () => undefined };
  const p = {
    queue: { settle: (_l: Lease, s: Settlement) => (settled.push(s), Promise.resolve(true)) },
    gate: {
      charge: () => Promise.resolve({ kind: 'ok', gen: 0, chatNextMs: 0, waitMs: 0 }),
      depart,
      release: () => Promise.resolve(),
    },
    migrations: { get: () => Promise.resolve(undefined) },
    routing: { route: () => Promise.resolve(bot), invalidate: () => undefined },
    pacing: new BotPacing(systemClock),
    tokens: { api: () => ({ raw: { sendMessage: (b: unknown) => (sent.push(b), {}) } }) },
    health: { out: () => false, success: () => undefined, failure: () => undefined },
    settings: OUTBOUND_DEFAULTS,
    metrics: { sent: noop, lag: noop, dead: noop },
    clock: systemClock,
  } as unknown as AttemptParts;
  return { p, settled, sent };
}

const lease = (): Lease => ({
  lane: 'l1',
  token: 't1',
  reclaimed: false,
  expires: Date.now() + 60_000,
  lost: [],
  job: {
    id: 'j1',
    chatId: '101',
    method: 'sendMessage',
    payload: { text: 'x' },
    scope: 'default',
    priority: 'normal',
    deadline: Date.now() + 60_000,
    notBefore: 0,
    createdAt: Date.now(),
    attempts: 0,
    state: 'sending',
  } as unknown as Lease['job'],
});

describe('SendAttempt: a call that fails before the send leaves', () => {
  it('should put the lane back at once, not hold it until its lease ends', async () => {
    const { p, settled, sent } = parts(() => Promise.reject(new Error('Command timed out')));
    const before = Date.now();
    await expect(new SendAttempt(p).run(lease())).rejects.toThrow(/timed out/);
    expect(sent).toEqual([]);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ kind: 'wait', state: 'queued' });
    // Due again soon (a second), long before the lease (a minute here) would have ended.
    const until = (settled[0] as { until: number }).until;
    expect(until).toBeGreaterThanOrEqual(before);
    expect(until).toBeLessThan(before + 10_000);
  });
});
