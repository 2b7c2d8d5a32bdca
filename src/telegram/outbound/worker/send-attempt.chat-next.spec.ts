import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import { OUTBOUND_DEFAULTS } from '../outbound.settings.js';
import type { Lease, Settlement } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';
import { BotPacing } from './bot-pacing.js';
import { SendAttempt } from './send-attempt.js';

const bot = { id: 'a', scope: 'default' } as BotConfig;
/** The chat's bucket takes its next send this long after a send's slot (1 / 0.9 s). */
const CHAT_MS = 1_111;
/** The slot the charge reserves this far ahead; the chat's next is then WAIT_MS + CHAT_MS after the charge. */
const WAIT_MS = 20;

/**
 * A gate that reserves a slot WAIT_MS ahead and lets every send go (the departure check takes `departMs` of
 * the manual clock: a full window held it); Telegram answers `answerMs` after the send left.
 */
function parts(clock: ManualClock, departMs: number, answerMs: number) {
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
      charge: () =>
        Promise.resolve({ kind: 'ok', gen: 0, chatNextMs: WAIT_MS + CHAT_MS, waitMs: WAIT_MS }),
      depart: () => (clock.advance(departMs), Promise.resolve({ kind: 'go' })),
      release: () => Promise.resolve(),
    },
    migrations: { get: () => Promise.resolve(undefined) },
    routing: { route: () => Promise.resolve(bot), invalidate: () => undefined },
    pacing: new BotPacing(clock),
    tokens: {
      api: () => ({
        raw: {
          sendMessage: () => (clock.advance(answerMs), Promise.resolve({ message_id: 1 })),
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

/** Runs one attempt; the lane's next job is due at the settle's `nextAt`, in ms after the charge. */
async function nextDue(departMs: number, answerMs: number): Promise<number> {
  const clock = new ManualClock();
  const charged = clock.now();
  const { p, settled } = parts(clock, departMs, answerMs);
  await new SendAttempt(p).run(lease(clock));
  expect(settled).toEqual([
    expect.objectContaining({ s: expect.objectContaining({ kind: 'sent' }) }),
  ]);
  return settled[0]!.nextAt! - charged;
}

describe('SendAttempt: the chat of a sent job', () => {
  it("should make the lane's next job due one chat interval after the answer, not that plus the slot's wait", async () => {
    // Its slot came WAIT_MS after the charge (the manual clock did not move meanwhile: count it in), Telegram
    // answered 30 ms later. The slot's wait counted twice made a two-job chat's second job ~240 ms late in the
    // bench (its reserve-ahead), the tail of a backlog.
    expect(await nextDue(WAIT_MS, 30)).toBe(WAIT_MS + 30 + CHAT_MS);
  });

  it("should count the chat's interval from the answer when its send left late, not from its slot", async () => {
    // A full departure window held the send 400 ms past its slot: its chat's next send must not come 1,111 ms
    // after the slot (711 ms after this one: a chat 429 with three workers), but after this one's answer.
    expect(await nextDue(WAIT_MS + 400, 30)).toBe(WAIT_MS + 400 + 30 + CHAT_MS);
  });
});
