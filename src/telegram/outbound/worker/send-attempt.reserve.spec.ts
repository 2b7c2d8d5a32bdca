import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import type { ChargeRequest, ChargeResult } from '../gate/send-gate.store.js';
import { OUTBOUND_DEFAULTS } from '../outbound.settings.js';
import type { Lease, Settlement } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';
import { BotPacing } from './bot-pacing.js';
import { SendAttempt } from './send-attempt.js';

const bot = { id: 'a', scope: 'default' } as BotConfig;
const S = OUTBOUND_DEFAULTS;

/** Parts of one worker over a gate that answers `charge` (the clock stands still: no slot comes by itself). */
function parts(clock: ManualClock, charge: (r: ChargeRequest) => Promise<ChargeResult>) {
  const settled: Settlement[] = [];
  const noop = { inc: () => undefined, observe: () => undefined };
  const p = {
    queue: { settle: (_: Lease, s: Settlement) => (settled.push(s), Promise.resolve(true)) },
    gate: {
      charge,
      depart: () => Promise.resolve({ kind: 'go' }),
      release: () => Promise.resolve(),
    },
    migrations: { get: () => Promise.resolve(undefined) },
    routing: {
      route: (_: unknown, excluded: Set<string>) =>
        Promise.resolve(excluded.has(bot.id) ? 'no_bot' : bot),
      invalidate: () => undefined,
      ids: () => [bot.id],
    },
    pacing: new BotPacing(clock),
    tokens: { api: () => ({ raw: { sendMessage: () => Promise.resolve({ message_id: 1 }) } }) },
    health: { out: () => false, success: () => undefined, failure: () => undefined },
    settings: S,
    metrics: { sent: noop, lag: noop, dead: noop },
    clock,
  } as unknown as AttemptParts;
  return { p, settled };
}

let n = 0;
const lease = (clock: ManualClock): Lease => ({
  lane: `l${++n}`,
  token: `t${n}`,
  reclaimed: false,
  expires: clock.now() + 60_000,
  lost: [],
  job: {
    id: `j${n}`,
    chatId: String(100 + n),
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

describe('SendAttempt: a slot of a busy bot', () => {
  it('should reserve it at once up to reserveAheadMs + holdMs ahead, not wait for it in a line of its worker', async () => {
    const clock = new ManualClock();
    // The bot's next slot is 400 ms ahead (other workers reserved the ones before): past reserveAheadMs (250).
    const asked: number[] = [];
    const charge = (r: ChargeRequest): Promise<ChargeResult> => {
      asked.push(r.maxWaitMs ?? 0);
      return Promise.resolve(
        (r.maxWaitMs ?? 0) >= 400
          ? { kind: 'ok', gen: 0, chatNextMs: 1_511, waitMs: 1 }
          : { kind: 'wait', ms: 400 - (r.maxWaitMs ?? 0), why: 'bucket', bucket: 'bot' },
      );
    };
    const { p, settled } = parts(clock, charge);
    await new SendAttempt(p).run(lease(clock));
    // Its place in the line every worker shares, taken at once: sent, with one call to the gate. (Waiting in
    // its worker's line, it lost each freed slot to another worker's line and went back to the queue.)
    expect(settled.map((s) => s.kind)).toEqual(['sent']);
    expect(asked).toEqual([S.reserveAheadMs + S.holdMs]);
  });

  it('should count the lanes claimed and not routed yet against the room for more', async () => {
    const clock = new ManualClock();
    const pending: ((r: ChargeResult) => void)[] = [];
    const { p } = parts(clock, () => new Promise((r) => pending.push(r)));
    const a = new SendAttempt(p);
    // This worker knows of the bot's slots: its last reserved one is 10 ms ahead, the rest of 550 ms is free.
    const interval = 1000 / S.buckets.bot.perSecond;
    p.pacing.reserved(bot.id, clock.now() + 10, interval, S.reserveAheadMs + S.holdMs);
    const before = a.room().lanes;
    expect(before).toBe(Math.floor((S.reserveAheadMs + S.holdMs - 10 - interval) / interval) + 1);
    const runs = [a.run(lease(clock)), a.run(lease(clock))];
    while (pending.length < 2) await new Promise((r) => setImmediate(r));
    // Two lanes on their way to the gate: a claim now takes what is left (a claim right after a claim took
    // the same room twice, and its lanes only went back).
    expect(a.room().lanes).toBe(before - 2);
    for (const [i, resolve] of pending.entries())
      resolve({ kind: 'ok', gen: 0, chatNextMs: 1_111, waitMs: 10 + (i + 1) * interval });
    await Promise.all(runs);
    expect(a.room().lanes).toBe(before - 2);
  });

  it("should put a lane whose chat is not ready back until its chat's slot, not until that is within reach", async () => {
    const clock = new ManualClock();
    const horizon = S.reserveAheadMs + S.holdMs;
    // The chat takes its next send 900 ms from now: 350 ms past what a lane may reserve ahead.
    const charge = (): Promise<ChargeResult> =>
      Promise.resolve({ kind: 'wait', ms: 900 - horizon, why: 'bucket', bucket: 'chat' });
    const { p, settled } = parts(clock, charge);
    await new SendAttempt(p).run(lease(clock));
    // Claimed again at 350 ms it would reserve the chat's slot 550 ms ahead, and the bot's line (one GCRA
    // time) would move past every slot before it: every other lane of the bot waited behind it.
    expect(settled).toEqual([expect.objectContaining({ kind: 'wait', until: clock.now() + 900 })]);
  });
});
