import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import { OUTBOUND_DEFAULTS } from '../outbound.settings.js';
import type { Lease, Settlement } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';
import { BotPacing } from './bot-pacing.js';
import { SendAttempt } from './send-attempt.js';

const bot = { id: 'a', scope: 'default' } as BotConfig;
/** The chat's bucket takes its next send this long after the charge (its slot + 1 / 0.9 s). */
const CHAT_NEXT_MS = 1_111;
/** Telegram answers this long after the charge (a slot reserved ahead, then the round trip). */
const ANSWER_MS = 300;

/** A gate that charges at once and lets every send go; Telegram answers ANSWER_MS later (a manual clock). */
function parts(clock: ManualClock) {
  const settled: { s: Settlement; now: number; nextAt?: number }[] = [];
  const noop = { inc: () => undefined, observe: () => undefined };
  const p = {
    queue: {
      settle: (_: Lease, s: Settlement, now: number, nextAt?: number) => {
        settled.push({ s, now, nextAt });
        return Promise.resolve(true);
      },
    },
    gate: {
      charge: () => Promise.resolve({ kind: 'ok', gen: 0, chatNextMs: CHAT_NEXT_MS, waitMs: 0 }),
      depart: () => Promise.resolve({ kind: 'go' }),
      release: () => Promise.resolve(),
    },
    migrations: { get: () => Promise.resolve(undefined) },
    routing: { route: () => Promise.resolve(bot), invalidate: () => undefined },
    pacing: new BotPacing(clock),
    tokens: {
      api: () => ({
        raw: {
          sendMessage: () => (clock.advance(ANSWER_MS), Promise.resolve({ message_id: 1 })),
        },
      }),
      token: () => 'x',
    },
    health: { out: () => false, success: () => undefined, failure: () => undefined },
    settings: OUTBOUND_DEFAULTS,
    metrics: { sent: noop, lag: noop, dead: noop },
    clock,
  } as unknown as AttemptParts;
  return { p, settled };
}

const lease = (clock: ManualClock): Lease => ({
  lane: 'l1',
  token: 't1',
  reclaimed: false,
  expires: clock.now() + 60_000,
  lost: [],
  job: {
    id: 'j1',
    chatId: '101',
    method: 'sendMessage',
    payload: { text: 'x' },
    scope: 'default',
    priority: 'normal',
    deadline: clock.now() + 60_000,
    notBefore: 0,
    createdAt: clock.now(),
    attempts: 0,
    state: 'sending',
  } as unknown as Lease['job'],
});

describe('SendAttempt: the chat of a sent job', () => {
  it("should make the lane's next job due when the chat's bucket takes it, counted from the charge", async () => {
    const clock = new ManualClock();
    const charged = clock.now();
    const { p, settled } = parts(clock);
    await new SendAttempt(p).run(lease(clock));
    expect(settled).toEqual([
      expect.objectContaining({ s: expect.objectContaining({ kind: 'sent' }) }),
    ]);
    // Not from the answer (charged + 300 + 1,111): a two-job chat's second job went out that much late,
    // the tail of a backlog.
    expect(settled[0]!.nextAt).toBe(charged + CHAT_NEXT_MS);
  });
});
