/**
 * THE table of a chat lane's move (OutboundQueueStore.migrate: `migrate_to_chat_id` answered to the lane's
 * head): the memory store and the Redis store (standalone, one and several partitions, and a Cluster) run it.
 */
import { expect, it } from 'vitest';
import type {
  Lease,
  OutboundQueueStore,
} from '../../src/telegram/outbound/queue/outbound-queue.store.js';
import { job } from './telegram-outbound-stores.table.js';

const T0 = 1_800_000_000_000;
let seq = 0;
/** A basic group's id and the supergroup id it moves to. */
function groups(): [string, string] {
  const n = 7_000_000 + (process.pid % 1000) * 1000 + ++seq;
  return [`-${n}`, `-100${n}`];
}
const id = (app: string) => `${app}/m${process.pid}-${++seq}`;

/** Claims and settles sent, one claim at a time, until nothing is due: [job id, chat id] in sending order. */
async function drain(q: OutboundQueueStore, now: number): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (let i = 0; i < 50; i++) {
    const { leases } = await q.claim(now, 30_000, 10);
    if (leases.length === 0) return out;
    for (const l of leases) {
      out.push([l.job.id, l.job.chatId]);
      await q.settle(l, { kind: 'sent', bot: 'b', messageId: 1 }, now);
    }
  }
  return out;
}

export function runLaneMigrationTable(make: () => Promise<OutboundQueueStore>): void {
  it('should move the held head and the jobs queued behind it to the new lane, in order, ahead of later jobs', async () => {
    const q = await make();
    const [old, to] = groups();
    const js = [0, 1, 2, 3].map((i) => job(old, { id: id('shop'), payload: { text: `t${i}` } }));
    for (const [i, j] of js.entries()) await q.enqueue([j], T0 + i);
    const [l] = (await q.claim(T0 + 10, 30_000, 10)).leases;
    expect(l!.job.id).toBe(js[0]!.id);
    const depth = await q.depth();
    expect(await q.migrate(l!, to, T0 + 11)).toEqual(js.map((j) => j.id));
    expect(await q.depth()).toBe(depth);
    expect(await q.get(js[2]!.id)).toMatchObject({ chatId: to, state: 'queued' });
    // A job posted after the move (to the new id) comes after the moved ones.
    const later = job(to, { id: id('shop') });
    await q.enqueue([later], T0 + 20);
    const sent = await drain(q, T0 + 30);
    expect(sent).toEqual([...js, later].map((j) => [j.id, to]));
    // The old lane is gone: its lease ended with the move, nothing is left to send to the old id.
    expect(await q.settle(l!, { kind: 'sent', bot: 'b' }, T0 + 40)).toBe(false);
  });

  it('should merge the moved jobs by posting time behind the new lane’s held head', async () => {
    const q = await make();
    const [old, to] = groups();
    const [a1, a2] = [job(old, { id: id('shop') }), job(old, { id: id('shop') })];
    const [x1, x2] = [job(to, { id: id('shop') }), job(to, { id: id('shop') })];
    await q.enqueue([a1], T0);
    await q.enqueue([x1], T0 + 5);
    const { leases } = await q.claim(T0 + 5, 30_000, 10);
    expect(leases.map((l) => l.job.id).sort()).toEqual([a1.id, x1.id].sort());
    // Posted before the move is known: x2 (to the new id) before a2 (to the old one).
    await q.enqueue([x2], T0 + 30);
    await q.enqueue([a2], T0 + 35);
    const la = leases.find((l) => l.job.id === a1.id)!;
    expect(await q.migrate(la, to, T0 + 36)).toEqual([a1.id, a2.id]);
    // x1 is being sent (held): it stays first; then a1, x2, a2 as they were posted.
    expect((await q.claim(T0 + 37, 30_000, 10)).leases).toEqual([]);
    const lx = leases.find((l) => l.job.id === x1.id)!;
    expect(await q.settle(lx, { kind: 'sent', bot: 'b' }, T0 + 38)).toBe(true);
    expect(await drain(q, T0 + 39)).toEqual([a1, x2, a2].map((j) => [j.id, to]));
  });

  it('should move only the head’s app’s jobs: another app’s jobs of the lane stay, to the old id', async () => {
    const q = await make();
    const [old, to] = groups();
    const e1 = job(old, { id: id('evil') });
    const s1 = job(old, { id: id('shop') });
    const e2 = job(old, { id: id('evil') });
    const s2 = job(old, { id: id('shop') });
    for (const [i, j] of [e1, s1, e2, s2].entries()) await q.enqueue([j], T0 + i);
    const [l] = (await q.claim(T0 + 10, 30_000, 10)).leases;
    expect(l!.job.id).toBe(e1.id);
    expect(await q.migrate(l!, to, T0 + 11)).toEqual([e1.id, e2.id]);
    expect(await q.get(s1.id)).toMatchObject({ chatId: old, state: 'queued' });
    const sent = await drain(q, T0 + 20);
    expect(sent.filter(([i]) => i.startsWith('shop/'))).toEqual([
      [s1.id, old],
      [s2.id, old],
    ]);
    expect(sent.filter(([i]) => i.startsWith('evil/'))).toEqual([
      [e1.id, to],
      [e2.id, to],
    ]);
  });

  it('should change nothing for a lease that is not the lane’s (lost, or another holder’s)', async () => {
    const q = await make();
    const [old, to] = groups();
    const [s1, s2] = [job(old, { id: id('shop') }), job(old, { id: id('shop') })];
    await q.enqueue([s1, s2], T0);
    const [l] = (await q.claim(T0, 1_000, 10)).leases;
    const forged: Lease = { ...l!, token: 'not-the-token' };
    expect(await q.migrate(forged, to, T0 + 1)).toEqual([]);
    // The lease expires and the lane is claimed again: the old holder cannot move it any more.
    const [again] = (await q.claim(T0 + 2_000, 1_000, 10)).leases;
    expect(again!.job.id).toBe(s1.id);
    expect(await q.migrate(l!, to, T0 + 2_001)).toEqual([]);
    expect(await q.get(s2.id)).toMatchObject({ chatId: old, state: 'queued' });
    expect(await q.settle(again!, { kind: 'sent', bot: 'b' }, T0 + 2_002)).toBe(true);
    expect(await drain(q, T0 + 2_003)).toEqual([[s2.id, old]]);
  });

  it('should let a moved job be cancelled in its new lane, and hand its collapse key to a later job there', async () => {
    const q = await make();
    const [old, to] = groups();
    const h = job(old, { id: id('shop') });
    const a = job(old, { id: id('shop'), collapseKey: 'shop/k' });
    const c = job(old, { id: id('shop') });
    await q.enqueue([h, a, c], T0);
    const [l] = (await q.claim(T0 + 1, 30_000, 10)).leases;
    expect(await q.migrate(l!, to, T0 + 2)).toEqual([h.id, a.id, c.id]);
    expect(await q.cancel(c.id, T0 + 3)).toBe('cancelled');
    expect(await q.get(c.id)).toMatchObject({ state: 'cancelled', chatId: to });
    // A later job with a's key, for the new id: it replaces a (waiting there), as if a had been posted there.
    const b = job(to, { id: id('shop'), collapseKey: 'shop/k' });
    expect(await q.enqueue([b], T0 + 4)).toEqual(['replaced']);
    expect(await q.get(a.id)).toMatchObject({ state: 'collapsed', collapsedBy: b.id });
    expect(await drain(q, T0 + 5)).toEqual([h, b].map((j) => [j.id, to]));
    expect(await q.depth()).toBe(0);
  });

  for (const first of ['moved', 'waiting'] as const)
    it(`should collapse the older of a moved job and a waiting job of the new lane with its key (${first} first), never another app’s`, async () => {
      const q = await make();
      const [old, to] = groups();
      const later = T0 + 3_600_000;
      const h = job(old, { id: id('shop') });
      // Waiting in the new lane (due later, so not held): one of the app's own with the key, one of another app.
      const x = job(to, { id: id('shop'), collapseKey: 'shop/k', notBefore: later });
      const e = job(to, { id: id('evil'), collapseKey: 'evil/k', notBefore: later });
      const a = job(old, { id: id('shop'), collapseKey: 'shop/k' });
      await q.enqueue([h], T0);
      const order = first === 'moved' ? [a, x, e] : [x, e, a];
      for (const [i, j] of order.entries()) await q.enqueue([j], T0 + 1 + i);
      const [l] = (await q.claim(T0 + 10, 30_000, 10)).leases;
      expect(l!.job.id).toBe(h.id);
      expect(await q.migrate(l!, to, T0 + 11)).toEqual([h.id, a.id]);
      const [older, newer] = first === 'moved' ? [a, x] : [x, a];
      expect(await q.get(older.id)).toMatchObject({ state: 'collapsed', collapsedBy: newer.id });
      expect(await q.get(newer.id)).toMatchObject({ state: 'queued', chatId: to });
      expect(await q.get(e.id)).toMatchObject({ state: 'queued' });
      // The survivor holds the key: a later job with it replaces that one.
      const b = job(to, { id: id('shop'), collapseKey: 'shop/k', notBefore: later });
      expect(await q.enqueue([b], T0 + 12)).toEqual(['replaced']);
      expect(await q.get(newer.id)).toMatchObject({ state: 'collapsed', collapsedBy: b.id });
      expect(await drain(q, later)).toEqual([h, e, b].map((j) => [j.id, to]));
      expect(await q.depth()).toBe(0);
    });
}
