/**
 * THE tables of the outbound sender's stores: the queue (lanes, leases,
 * collapse, idempotency, dead letters) and the send gate (registry, cooldowns,
 * buckets). Both the memory stores and the Redis stores (a real redis-server)
 * run every case.
 */
import { expect, it } from 'vitest';
import type { SendGateStore } from '../../src/telegram/outbound/gate/send-gate.store.js';
import type { NewJob } from '../../src/telegram/outbound/outbound.types.js';
import type { OutboundQueueStore } from '../../src/telegram/outbound/queue/outbound-queue.store.js';

let seq = 0;
const T0 = 1_800_000_000_000;

export function job(chat: string, o: Partial<NewJob> = {}): NewJob {
  return {
    id: `j${process.pid}-${Date.now().toString(36)}-${++seq}`,
    chatId: chat,
    method: 'sendMessage',
    payload: { text: `m${seq}` },
    scope: 'default',
    priority: 'normal',
    deadline: T0 + 3_600_000,
    notBefore: T0,
    ...o,
  };
}

const chat = () => String(100_000 + ++seq);

export function runQueueTable(make: () => Promise<OutboundQueueStore>): void {
  it('should hand out one lane head at a time, in order, and the next after a settle', async () => {
    const q = await make();
    const [a, b] = [chat(), chat()];
    const [a1, a2, b1] = [job(a), job(a), job(b)];
    expect(await q.enqueue([a1, a2, b1], T0)).toEqual(['queued', 'queued', 'queued']);
    const first = await q.claim(T0, 1_000, 10);
    expect(first.leases.map((l) => l.job.id).sort()).toEqual([a1.id, b1.id].sort());
    expect((await q.claim(T0, 1_000, 10)).leases).toEqual([]);
    const la = first.leases.find((l) => l.job.id === a1.id)!;
    expect(await q.settle(la, { kind: 'sent', bot: 'x', messageId: 7 }, T0)).toBe(true);
    expect((await q.claim(T0, 1_000, 10)).leases.map((l) => l.job.id)).toEqual([a2.id]);
    expect(await q.get(a1.id)).toMatchObject({ state: 'sent', messageId: 7, bot: 'x' });
  });

  it('should give a lane put back for a full bot its place in line, not a place behind later lanes', async () => {
    const q = await make();
    const [a, b] = [chat(), chat()];
    const [a1, b1] = [job(a), job(b, { notBefore: T0 + 100 })];
    await q.enqueue([a1], T0);
    await q.enqueue([b1], T0 + 100);
    const [la] = (await q.claim(T0, 1_000, 1)).leases;
    expect(la!.job.id).toBe(a1.id);
    // Every bot full for 400 ms: back with its place (due since T0), not due at T0 + 400 behind b's lane.
    const wait = { kind: 'wait', until: T0 + 400, state: 'queued', keepPlace: true } as const;
    expect(await q.settle(la!, wait, T0 + 50)).toBe(true);
    const again = await q.claim(T0 + 200, 1_000, 10);
    expect(again.leases.map((l) => l.job.id).sort()).toEqual([a1.id, b1.id].sort());
    expect(await q.get(a1.id)).toMatchObject({ state: 'sending' });
    // A wait without it (a cooldown) is due at its end only.
    const la2 = again.leases.find((l) => l.job.id === a1.id)!;
    await q.settle(la2, { kind: 'wait', until: T0 + 900, state: 'waiting' }, T0 + 200);
    expect((await q.claim(T0 + 300, 1_000, 10)).leases).toEqual([]);
  });

  it('should keep a waiting job first in its lane, with its attempts, until its time', async () => {
    const q = await make();
    const c = chat();
    const [j1, j2] = [job(c), job(c)];
    await q.enqueue([j1], T0);
    const [l] = (await q.claim(T0, 1_000, 5)).leases;
    await q.settle(l!, { kind: 'wait', until: T0 + 500, state: 'waiting', attempts: 2 }, T0);
    await q.enqueue([j2], T0);
    const none = await q.claim(T0 + 100, 1_000, 5);
    expect(none.leases).toEqual([]);
    expect(none.nextAt).toBe(T0 + 500);
    expect(await q.get(j1.id)).toMatchObject({ state: 'waiting', attempts: 2 });
    const again = await q.claim(T0 + 500, 1_000, 5);
    expect(again.leases.map((x) => x.job.id)).toEqual([j1.id]);
    expect(again.leases[0]!.job.attempts).toBe(2);
  });

  it('should never queue a known job_id twice, also after it was sent', async () => {
    const q = await make();
    const j = job(chat());
    expect(await q.enqueue([j, { ...j, payload: { text: 'other' } }], T0)).toEqual([
      'queued',
      'duplicate',
    ]);
    const [l] = (await q.claim(T0, 1_000, 5)).leases;
    await q.settle(l!, { kind: 'sent', bot: 'x', messageId: 1 }, T0);
    expect(await q.enqueue([j], T0 + 10)).toEqual(['duplicate']);
    expect((await q.claim(T0 + 20, 1_000, 5)).leases).toEqual([]);
  });

  it('should collapse a waiting job with the same key, never the one being sent', async () => {
    const q = await make();
    const c = chat();
    const [c1, c2, c3] = [
      job(c, { collapseKey: 's' }),
      job(c, { collapseKey: 's' }),
      job(c, { collapseKey: 's' }),
    ];
    expect(await q.enqueue([c1, c2], T0)).toEqual(['queued', 'replaced']);
    expect(await q.get(c1.id)).toMatchObject({ state: 'collapsed', collapsedBy: c2.id });
    const [l] = (await q.claim(T0, 1_000, 5)).leases;
    expect(l!.job.id).toBe(c2.id);
    expect(await q.enqueue([c3], T0)).toEqual(['queued']);
    expect(await q.get(c2.id)).toMatchObject({ state: 'sending' });
    await q.settle(l!, { kind: 'sent', bot: 'x' }, T0);
    expect((await q.claim(T0, 1_000, 5)).leases.map((x) => x.job.id)).toEqual([c3.id]);
  });

  it('should reclaim a lane whose lease expired, and refuse the old holder', async () => {
    const q = await make();
    const j = job(chat());
    await q.enqueue([j], T0);
    const [old] = (await q.claim(T0, 100, 5)).leases;
    expect((await q.claim(T0 + 50, 100, 5)).leases).toEqual([]);
    const [now] = (await q.claim(T0 + 150, 100, 5)).leases;
    expect(now).toMatchObject({ reclaimed: true, job: { id: j.id } });
    expect(await q.settle(old!, { kind: 'sent', bot: 'x' }, T0 + 160)).toBe(false);
    expect(await q.settle(now!, { kind: 'sent', bot: 'x' }, T0 + 160)).toBe(true);
  });

  it('should note every lease that ended without a settle until the job is settled', async () => {
    const q = await make();
    const j = job(chat());
    await q.enqueue([j], T0);
    const [a] = (await q.claim(T0, 100, 5)).leases;
    expect(a).toMatchObject({ reclaimed: false, expires: T0 + 100, lost: [] });
    const [b] = (await q.claim(T0 + 150, 100, 5)).leases;
    expect(b!.lost).toEqual([{ token: a!.token, ended: T0 + 100 }]);
    // The worker that reclaimed it died too: both leases are noted, oldest first.
    const [c] = (await q.claim(T0 + 300, 100, 5)).leases;
    expect(c!.lost).toEqual([
      { token: a!.token, ended: T0 + 100 },
      { token: b!.token, ended: T0 + 250 },
    ]);
    await q.settle(c!, { kind: 'wait', until: T0 + 300, state: 'queued' }, T0 + 300);
    expect((await q.claim(T0 + 310, 100, 5)).leases[0]).toMatchObject({
      reclaimed: false,
      lost: [],
    });
  });

  it('should list dead jobs with their reason and replay them at the end of their lane', async () => {
    const q = await make();
    const c = chat();
    const [d, e] = [job(c), job(c)];
    await q.enqueue([d, e], T0);
    const [l] = (await q.claim(T0, 1_000, 5)).leases;
    await q.settle(
      l!,
      { kind: 'dead', reason: 'max_attempts', bot: 'x', error: '500', attempts: 5 },
      T0,
    );
    expect((await q.dead(10)).map((x) => [x.id, x.reason, x.attempts])).toEqual([
      [d.id, 'max_attempts', 5],
    ]);
    expect(await q.replay([d.id, e.id], T0 + 1, 60_000)).toEqual([d.id]);
    expect(await q.get(d.id)).toMatchObject({
      state: 'queued',
      attempts: 0,
      deadline: T0 + 60_001,
    });
    expect(await q.dead(10)).toEqual([]);
    const order: string[] = [];
    for (let i = 0; i < 2; i++) {
      const [x] = (await q.claim(T0 + 2, 1_000, 5)).leases;
      order.push(x!.job.id);
      await q.settle(x!, { kind: 'sent', bot: 'x' }, T0 + 2);
    }
    expect(order).toEqual([e.id, d.id]);
  });

  it('should serve high priority lanes first and hold a lane until its not_before', async () => {
    const q = await make();
    const [lo, hi, later] = [
      job(chat()),
      job(chat(), { priority: 'high' }),
      job(chat(), { notBefore: T0 + 400 }),
    ];
    await q.enqueue([lo, hi, later], T0);
    expect((await q.claim(T0, 1_000, 1)).leases[0]!.job.id).toBe(hi.id);
    expect((await q.claim(T0, 1_000, 5)).leases.map((l) => l.job.id)).toEqual([lo.id]);
    expect((await q.claim(T0 + 400, 1_000, 5)).leases.map((l) => l.job.id)).toEqual([later.id]);
  });

  it('should make due now only the lanes waiting for a lifted bot, never a held one', async () => {
    const q = await make();
    const [a, b, c] = [chat(), chat(), chat()];
    const [a1, b1, c1] = [job(a), job(b), job(c)];
    await q.enqueue([a1, b1, c1], T0);
    const held = (await q.claim(T0, 1_000, 5)).leases;
    const of = (id: string) => held.find((l) => l.job.id === id)!;
    const hour = { kind: 'wait', until: T0 + 3_600_000, state: 'waiting' } as const;
    await q.settle(of(a1.id), { ...hour, bot: 'x' }, T0);
    await q.settle(of(b1.id), { ...hour, bot: 'y' }, T0);
    // c1 stays held (being sent by bot x, say): its lane is the holder's.
    expect(await q.wake('x', T0 + 10)).toBe(1);
    expect((await q.claim(T0 + 10, 1_000, 5)).leases.map((l) => l.job.id)).toEqual([a1.id]);
    expect(await q.get(b1.id)).toMatchObject({ state: 'waiting', waitUntil: T0 + 3_600_000 });
    expect(await q.wake('x', T0 + 20)).toBe(0);
  });

  it('should cancel a queued job, never the head of a held lane, and hand the lane on', async () => {
    const q = await make();
    const [c, d] = [chat(), chat()];
    const [c1, c2, c3, d1] = [job(c), job(c), job(c), job(d, { collapseKey: 'k' })];
    await q.enqueue([c1, c2, c3, d1], T0);
    const first = (await q.claim(T0, 1_000, 5)).leases;
    const held = first.find((l) => l.job.id === c1.id);
    const ld = first.find((l) => l.job.id === d1.id);
    // c1 is being sent (its lane held, it at the head): it stays; c2 behind it is not sent and may go.
    expect(await q.cancel(c1.id, T0)).toBe('sending');
    expect(await q.cancel(c2.id, T0 + 1)).toBe('cancelled');
    expect(await q.get(c2.id)).toMatchObject({ state: 'cancelled', finishedAt: T0 + 1 });
    expect(await q.settle(held!, { kind: 'sent', bot: 'x' }, T0 + 2)).toBe(true);
    expect((await q.claim(T0 + 2, 1_000, 5)).leases.map((l) => l.job.id)).toEqual([c3.id]);
    // Finished jobs and unknown ids are not cancelled.
    expect(await q.cancel(c1.id, T0 + 3)).toBe('finished');
    expect(await q.cancel(c2.id, T0 + 3)).toBe('finished');
    expect(await q.cancel('nope', T0 + 3)).toBe('unknown');
    // d1 waits (its lane released): the head, not held, is cancelled and its lane is gone.
    await q.settle(ld!, { kind: 'wait', until: T0 + 500, state: 'waiting' }, T0 + 3);
    expect(await q.cancel(d1.id, T0 + 4)).toBe('cancelled');
    expect(await q.depth()).toBe(1); // c3, held
    expect((await q.claim(T0 + 600, 1_000, 5)).leases).toEqual([]);
    // Its collapse key is free: a new job with it is queued, not a replacement.
    const d2 = job(d, { collapseKey: 'k' });
    expect(await q.enqueue([d2], T0 + 5)).toEqual(['queued']);
    expect((await q.claim(T0 + 600, 1_000, 5)).leases.map((l) => l.job.id)).toEqual([d2.id]);
  });

  it('should sum the backlog per queue (scope, pinned bot) with its oldest due job, never naming a chat', async () => {
    const q = await make();
    const scope = `sc${++seq}`;
    const [a, b, c] = [chat(), chat(), chat()];
    await q.enqueue(
      [job(a, { scope }), job(a, { scope }), job(b, { scope, notBefore: T0 + 50 })],
      T0,
    );
    await q.enqueue([job(c, { scope, pinnedBot: `${scope}bot` })], T0 + 10);
    const { queues, truncated } = await q.backlog(1_000);
    const mine = queues.filter((x) => x.queue.includes(scope));
    expect(truncated).toBe(false);
    expect(mine.sort((x, y) => x.queue.localeCompare(y.queue))).toEqual([
      { queue: `bot=${scope}bot`, jobs: 1, lanes: 1, oldestDueAt: T0 + 10 },
      { queue: scope, jobs: 3, lanes: 2, oldestDueAt: T0 },
    ]);
    expect(JSON.stringify(queues)).not.toMatch(new RegExp(`${a}|${b}|${c}`));
    expect((await q.backlog(0)).truncated).toBe(true);
  });
}

const B = { perSecond: 1, burst: 1 };
const req = (bot: string, chatId: string, o: { bot?: typeof B } = {}) => ({
  bot,
  chatId,
  method: 'sendMessage',
  weight: 1,
  sendId: `s${++seq}`,
  inflightMs: 5_000,
  buckets: { bot: o.bot ?? { perSecond: 100, burst: 100 }, chat: B },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function runGateTable(make: () => Promise<SendGateStore>): void {
  it('should keep a departed send as departed, and only one that went', async () => {
    const g = await make();
    const [bot, other] = [`b${++seq}`, `b${++seq}`];
    expect(await g.depart(bot, 'lease-1', 1_000, 1, 60_000)).toEqual({ kind: 'go' });
    // The window is full: this one does not leave, and is not recorded.
    expect(await g.depart(bot, 'lease-2', 1_000, 1, 60_000)).toMatchObject({ kind: 'full' });
    expect(await g.departed([other, bot], 'lease-1')).toBe(true);
    expect(await g.departed([other, bot], 'lease-2')).toBe(false);
    expect(await g.departed([other], 'lease-1')).toBe(false);
  });

  it('should charge the chat bucket per chat and the bot bucket across chats', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    const tight = { bot: { perSecond: 2, burst: 2 } };
    expect(await g.charge(req(bot, '1', tight))).toMatchObject({ kind: 'ok', gen: 0 });
    const again = await g.charge(req(bot, '1', tight));
    expect(again).toMatchObject({ kind: 'wait', why: 'bucket' });
    expect((again as { ms: number }).ms).toBeGreaterThan(900);
    expect(await g.charge(req(bot, '2', tight))).toMatchObject({ kind: 'ok' });
    expect(await g.charge(req(bot, '3', tight))).toMatchObject({ kind: 'wait', why: 'bucket' });
  });

  it('should hand out reserved slots one interval apart, slower after a 429 (AIMD)', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    const paced = { bot: { perSecond: 10, burst: 1 } };
    const aimd = { backoff: 0.5, recoverPerSecond: 0.001 };
    const slots = async () => {
      const w: number[] = [];
      for (let i = 0; i < 3; i++) {
        const c = await g.charge({ ...req(bot, `${++seq}`, paced), maxWaitMs: 5_000, aimd });
        w.push(c.kind === 'ok' ? c.waitMs : NaN);
      }
      return [w[1]! - w[0]!, w[2]! - w[1]!];
    };
    // A new bot sends at its rate from the first slot (no warm-up).
    for (const d of await slots()) expect(Math.abs(d - 100)).toBeLessThanOrEqual(30);
    await g.cooldown(bot, undefined, 1, { cap: 10, ...aimd });
    await sleep(700); // the cooldown and the slots reserved before it are over
    // 10/s × 0.5 (and regains almost nothing here).
    for (const d of await slots()) expect(Math.abs(d - 200)).toBeLessThanOrEqual(30);
  });

  it('should hold a bot cooldown for every chat, never shortened by a later shorter one', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    const until = await g.cooldown(bot, undefined, 400);
    expect(await g.cooldown(bot, undefined, 50)).toBe(until);
    const w = await g.charge(req(bot, '1'));
    expect(w).toMatchObject({ kind: 'wait', why: 'cooldown' });
    expect((w as { ms: number }).ms).toBeGreaterThan(300);
    expect(await g.status(bot)).toMatchObject({ state: 'cooldown', until });
    await sleep(450);
    expect(await g.charge(req(bot, '2'))).toMatchObject({ kind: 'ok' });
    expect((await g.status(bot)).state).toBe('active');
  });

  it('should cool down one chat of a bot only', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    await g.cooldown(bot, '5', 10_000);
    expect(await g.charge(req(bot, '5'))).toMatchObject({ kind: 'wait', why: 'chat_cooldown' });
    expect(await g.charge(req(bot, '6'))).toMatchObject({ kind: 'ok' });
  });

  it('should refuse a disabled or revoked bot, and an unreachable chat', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    await g.markUnreachable(bot, '9', 60_000);
    expect(await g.charge(req(bot, '9'))).toEqual({ kind: 'refused', why: 'unreachable' });
    expect(await g.charge(req(bot, '8'))).toMatchObject({ kind: 'ok' });
    await g.setStatus(bot, { state: 'disabled' });
    expect(await g.charge(req(bot, '7'))).toEqual({ kind: 'refused', why: 'disabled' });
    await g.setStatus(bot, { state: 'revoked', reason: '401' });
    expect(await g.charge(req(bot, '7'))).toEqual({ kind: 'refused', why: 'revoked' });
    expect(await g.setStatus(bot, { state: 'active' })).toMatchObject({ state: 'active' });
  });

  it('should clear one bot × chat mark only (the bot seen back in that chat)', async () => {
    const g = await make();
    const [bot, other] = [`b${++seq}`, `b${++seq}`];
    await g.markUnreachable(bot, '9', 60_000);
    await g.markUnreachable(bot, '10', 60_000);
    await g.markUnreachable(other, '9', 60_000);
    await g.clearUnreachable(bot, '9');
    expect(await g.charge(req(bot, '9'))).toMatchObject({ kind: 'ok' });
    expect(await g.charge(req(bot, '10'))).toEqual({ kind: 'refused', why: 'unreachable' });
    expect(await g.charge(req(other, '9'))).toEqual({ kind: 'refused', why: 'unreachable' });
  });

  it('should hold sends while rotating, count those in flight, and move the generation', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    const r = req(bot, '1');
    expect(await g.charge(r)).toMatchObject({ kind: 'ok' });
    expect(await g.inflight(bot)).toBe(1);
    await g.setStatus(bot, { rotating: true });
    expect(await g.charge(req(bot, '2'))).toMatchObject({ kind: 'wait', why: 'rotating' });
    await g.release(bot, r.sendId);
    expect(await g.inflight(bot)).toBe(0);
    await g.setStatus(bot, { bumpGen: true, rotating: false });
    expect(await g.charge(req(bot, '2'))).toMatchObject({ kind: 'ok', gen: 1 });
  });

  it('should count an answered send in the departure window from its answer, not from when it left', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    expect(await g.depart(bot, 's1', 2_000, 1, 60_000)).toEqual({ kind: 'go' });
    // Answered 1.2 s after it left: it may have reached Telegram that late (a stalled worker, a slow read).
    await sleep(1_200);
    await g.release(bot, 's1', 'ok');
    await sleep(1_000);
    // 2.2 s after it left, but 1 s after its answer: the window still holds it.
    expect(await g.depart(bot, 's2', 2_000, 1, 60_000)).toMatchObject({ kind: 'full' });
    // A send released without an answer (it never reached Telegram) does not move.
    expect(await g.depart(`${bot}x`, 's3', 2_000, 1, 60_000)).toEqual({ kind: 'go' });
    await g.release(`${bot}x`, 's3');
    expect(await g.depart(`${bot}x`, 's4', 2_000, 1, 60_000)).toMatchObject({ kind: 'full' });
  });

  it('should count answers and 429s of a bot over the window, from release', async () => {
    const g = await make();
    const bot = `b${++seq}`;
    for (const answer of ['ok', 'rate_limited', 'rate_limited', 'other', undefined] as const) {
      const r = req(bot, String(++seq));
      await g.charge(r);
      await g.release(bot, r.sendId, answer);
    }
    expect(await g.answers(bot)).toEqual({ answers: 4, rateLimited: 2 });
    expect(await g.answers(`${bot}x`)).toEqual({ answers: 0, rateLimited: 0 });
    expect(await g.inflight(bot)).toBe(0);
  });
}
