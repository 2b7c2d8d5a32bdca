import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import { OUTBOUND_DEFAULTS } from '../outbound.settings.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';
import { BotPacing } from './bot-pacing.js';
import { SendAttempt } from './send-attempt.js';

const bot = { id: 'a', scope: 'default' } as BotConfig;
const GAP_MS = 20;

/**
 * A gate whose departure window lets one send of the bot go per GAP_MS (else 'full', with the ms until the
 * next may go), counting the departure checks; everything else answers yes.
 */
function parts() {
  const n = { departs: 0, sent: 0 };
  let last = -Infinity;
  const gate = {
    charge: () => Promise.resolve({ kind: 'ok', gen: 0, chatNextMs: 0, waitMs: 0 }),
    depart: () => {
      n.departs++;
      const now = performance.now();
      if (now - last < GAP_MS)
        return Promise.resolve({ kind: 'full', ms: Math.ceil(last + GAP_MS - now) });
      last = now;
      return Promise.resolve({ kind: 'go' });
    },
    release: () => Promise.resolve(),
  };
  const noop = { inc: () => undefined, observe: () => undefined };
  const p = {
    queue: { settle: () => Promise.resolve(true) },
    gate,
    migrations: { get: () => Promise.resolve(undefined) },
    routing: { route: () => Promise.resolve(bot), invalidate: () => undefined },
    pacing: new BotPacing(systemClock),
    tokens: {
      api: () => ({ raw: { sendMessage: () => (n.sent++, Promise.resolve({ message_id: 1 })) } }),
      token: () => 'x',
    },
    health: { out: () => false, success: () => undefined, failure: () => undefined },
    // 1000 / 33 ≈ 30 ms between the tries of the sends waiting in line: over GAP_MS, slack for a late timer.
    settings: {
      ...OUTBOUND_DEFAULTS,
      buckets: { ...OUTBOUND_DEFAULTS.buckets, bot: { perSecond: 33, burst: 1 } },
    },
    metrics: { sent: noop, lag: noop, dead: noop },
    clock: systemClock,
  } as unknown as AttemptParts;
  return { p, n };
}

const lease = (i: number): Lease => ({
  lane: `l${i}`,
  token: `t${i}`,
  reclaimed: false,
  expires: Date.now() + 60_000,
  lost: [],
  job: {
    id: `j${i}`,
    chatId: String(100 + i),
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

describe('SendAttempt: sends waiting for a full departure window', () => {
  it('should try again in turn, one bot interval apart, not all at once', async () => {
    const { p, n } = parts();
    const a = new SendAttempt(p);
    const sends = 12;
    await Promise.all(Array.from({ length: sends }, (_, i) => a.run(lease(i))));
    expect(n.sent).toBe(sends);
    // All at once, each freed place is raced by every waiter: 12 + 11 + … + 1 = 78 checks. In turn: about
    // two each (the first full answer, then its turn), with room for a few timers late under load.
    expect(n.departs).toBeLessThanOrEqual(3 * sends);
  });
});
