/**
 * An app cancels a queued job while its chat's lane moves in Redis (redis-lane-move.ts: mark, adopt, point
 * the ids, detach; the two lanes in two partitions, or in one). The steps are called one by one, with the
 * cancel between two of them, or inside the cancel itself (its reads of the id key and its script calls each
 * see a different step done). Whenever it comes, a cancel answered `cancelled` holds: the job is never sent,
 * its status says `cancelled`, the lane's other jobs are each sent once, to the new id, in order, and every
 * partition's job count ends at 0. A job marked as moving is not collapsed by a job posted to the old id; a
 * job posted to the new id with a moved job's collapse key, whichever step it follows, collapses it.
 * On the suite's Redis (1 and 4 partitions) and on a 3-master Redis Cluster of this file's own (4 partitions:
 * the two lanes in two slots, on two nodes or one).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import type { Lease } from '../../src/telegram/outbound/queue/outbound-queue.store.js';
import {
  adoptJobs,
  detachLane,
  markLane,
  pointIds,
} from '../../src/telegram/outbound/queue/redis-lane-move.js';
import { RedisOutboundQueueStore } from '../../src/telegram/outbound/queue/redis-outbound-queue.store.js';
import { RedisQueueParts } from '../../src/telegram/outbound/queue/redis-queue.parts.js';
import { canStartRedis, redisUrl, uniqueEnv } from '../support/redis-env.js';
import { type RedisClusterProcess, startRedisCluster } from '../support/redis-server.js';
import { job } from '../support/telegram-outbound-stores.table.js';

const WEEK = 7 * 24 * 3600_000;
const T0 = 1_800_000_000_000;
const services: RedisService[] = [];
let seq = 0;
let cluster: RedisClusterProcess | undefined;

afterAll(async () => {
  await Promise.all(services.map((s) => s.onApplicationShutdown()));
  await cluster?.stop();
});

/** Runs before the next call of `script` (of a cancel: the call of that step, '', `dest` or `source`). */
interface Hook {
  script: string;
  step?: string;
  run: () => Promise<void>;
  /** The step's call fails instead (the cancelling process died before it). */
  fail?: boolean;
}

/** A store and the parts its move steps use, on one Redis (or a Cluster); `hook` cuts into the cancel's calls. */
async function rig(partitions: number, on: 'standalone' | 'cluster') {
  if (on === 'cluster') cluster ??= await startRedisCluster(3);
  const where =
    on === 'cluster'
      ? { REDIS_CLUSTER_NODES: cluster!.nodes.map((n) => `${n.host}:${n.port}`).join(',') }
      : { REDIS_URL: redisUrl() };
  const r = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      ...where,
      RAMPART_ENV: uniqueEnv('tgx'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    }),
    new MetricsService(),
  );
  await r.onModuleInit();
  services.push(r);
  const hooks: Hook[] = [];
  const runner = {
    run: r.run.bind(r),
    script: (async (name: string, keys: string[], args: (string | number)[]) => {
      const h = hooks[0];
      if (h && name === h.script && (h.step === undefined || args[4] === h.step)) {
        hooks.shift();
        await h.run();
        if (h.fail) throw new Error('cancelling process died');
      }
      return r.script(name, keys, args);
    }) as RedisService['script'],
  };
  const base = r.tag.slice(1, -1);
  const parts = new RedisQueueParts(runner, base, partitions, WEEK);
  return { q: new RedisOutboundQueueStore(runner, base, partitions, WEEK), parts, hooks, r, base };
}

/** A basic group and its supergroup whose lanes sit in two partitions (or the one, with one partition). */
function groups(parts: RedisQueueParts): [string, string] {
  for (;;) {
    const n = 7_400_000 + (process.pid % 1000) * 100 + ++seq;
    const [old, to] = [`-${n}`, `-100${n}`];
    const lane = (c: string) => parts.partOf(`default|${parts.ids.pseudonym(c)}`);
    if (parts.partitions === 1 || lane(old) !== lane(to)) return [old, to];
  }
}

type Rig = Awaited<ReturnType<typeof rig>>;

/** Four jobs of one app for `old`, the head held: [lease, ids]. */
async function heldLane(x: Rig, old: string): Promise<[Lease, string[]]> {
  const js = [0, 1, 2, 3].map((i) => job(old, { id: `shop/c${process.pid}-${++seq}-${i}` }));
  for (const [i, j] of js.entries()) await x.q.enqueue([j], T0 + i);
  const [l] = (await x.q.claim(T0 + 10, 30_000, 10)).leases;
  expect(l!.job.id).toBe(js[0]!.id);
  return [l!, js.map((j) => j.id)];
}

/** The move's four steps, with `between(i)` run after step i (0: before the first). */
async function move(x: Rig, l: Lease, to: string, between: (i: number) => Promise<void>) {
  await between(0);
  const m = (await markLane(x.parts, l, to))!;
  await between(1);
  const { moved, cancelled } = await adoptJobs(x.parts, m, T0 + 12);
  await between(2);
  await pointIds(x.parts, m, moved);
  await between(3);
  expect(await detachLane(x.parts, m, moved, cancelled, T0 + 13)).toBe(true);
  await between(4);
}

/** Claims and settles sent until nothing is due: [job id, chat id] in sending order. */
async function drain(x: Rig, now: number): Promise<[string, string][]> {
  x.q.forget();
  const out: [string, string][] = [];
  for (let i = 0; i < 20; i++) {
    const { leases } = await x.q.claim(now + i, 30_000, 10);
    if (leases.length === 0) break;
    for (const l of leases) {
      expect(l.movedTo).toBeUndefined();
      out.push([l.job.id, l.job.chatId]);
      expect(await x.q.settle(l, { kind: 'sent', bot: 'b' }, now + i)).toBe(true);
    }
  }
  return out;
}

/** The jobs in every partition's count (the store's depth) and in its lane lists (every master): 0 once drained. */
async function leftOver(x: Rig): Promise<number> {
  const lists = await x.r.run('test', async (c) => {
    const nodes = 'nodes' in c ? c.nodes('master') : [c];
    const found = await Promise.all(nodes.map((n) => n.keys(`tgo:{${x.base}:q*}:l:*`)));
    return found.flat();
  });
  return (await x.q.depth()) + lists.length;
}

const RIGS = [
  { partitions: 4, on: 'standalone', skip: false },
  { partitions: 1, on: 'standalone', skip: false },
  { partitions: 4, on: 'cluster', skip: !canStartRedis() },
] as const;

describe.skipIf(!redisUrl())(
  'RedisOutboundQueueStore: a cancel (or a collapse) while a lane moves',
  () => {
    for (const { partitions, on, skip } of RIGS) {
      describe.skipIf(skip)(`${partitions} partition(s), ${on}`, () => {
        for (const after of [0, 1, 2, 3, 4])
          it(`should hold a cancel that comes after step ${after} of 4 (and cancel the head only once it moved)`, async () => {
            const x = await rig(partitions, on);
            const [old, to] = groups(x.parts);
            const [l, ids] = await heldLane(x, old);
            const answers: string[] = [];
            await move(x, l, to, async (i) => {
              if (i !== after) return;
              answers.push(await x.q.cancel(ids[2]!, T0 + 11), await x.q.cancel(ids[0]!, T0 + 11));
            });
            // The held head is being sent until its id key names its copy in the new lane: once pointed there
            // (two partitions), or once taken in (its hash rewritten in place, one partition).
            const headMoved = after >= 3 || (partitions === 1 && after === 2);
            expect(answers).toEqual(['cancelled', headMoved ? 'cancelled' : 'sending']);
            expect(await x.q.get(ids[2]!)).toMatchObject({ state: 'cancelled' });
            const rest = ids.filter((_, i) => i !== 2 && (i !== 0 || !headMoved));
            expect(await drain(x, T0 + 20)).toEqual(rest.map((id) => [id, to]));
            expect(await x.q.get(ids[2]!)).toMatchObject({ state: 'cancelled' });
            expect(await leftOver(x)).toBe(0);
          });

        it('should leave out a job cancelled between the move’s read of the lane and its marks', async () => {
          const x = await rig(partitions, on);
          const [old, to] = groups(x.parts);
          const [l, ids] = await heldLane(x, old);
          x.hooks.push({
            script: 'telegram_queue_mark',
            run: async () => void expect(await x.q.cancel(ids[1]!, T0 + 11)).toBe('cancelled'),
          });
          const m = (await markLane(x.parts, l, to))!;
          expect(m.jobs.map(([id]) => id)).toEqual([ids[0], ids[2], ids[3]]);
          const { moved, cancelled } = await adoptJobs(x.parts, m, T0 + 12);
          await pointIds(x.parts, m, moved);
          expect(await detachLane(x.parts, m, moved, cancelled, T0 + 13)).toBe(true);
          expect(await x.q.get(ids[1]!)).toMatchObject({ state: 'cancelled', chatId: old });
          const rest = ids.filter((_, i) => i !== 1);
          expect(await drain(x, T0 + 20)).toEqual(rest.map((id) => [id, to]));
          expect(await leftOver(x)).toBe(0);
        });

        it('should leave another app’s jobs of the lane alone: its cancel mid-move cancels its own job only, in the old lane', async () => {
          const x = await rig(partitions, on);
          const [old, to] = groups(x.parts);
          const mk = (app: string) => job(old, { id: `${app}/e${process.pid}-${++seq}` });
          const [h, e1, s1, e2] = [mk('shop'), mk('evil'), mk('shop'), mk('evil')];
          for (const [i, j] of [h, e1, s1, e2].entries()) await x.q.enqueue([j], T0 + i);
          const [l] = (await x.q.claim(T0 + 10, 30_000, 10)).leases;
          const m = (await markLane(x.parts, l!, to))!;
          expect(m.jobs.map(([id]) => id)).toEqual([h.id, s1.id]);
          // Evil cancels its own job of the moving lane: an ordinary cancel there (no cancel mark for the move).
          expect(await x.q.cancel(e1.id, T0 + 11)).toBe('cancelled');
          const { moved, cancelled } = await adoptJobs(x.parts, m, T0 + 12);
          expect([moved, cancelled]).toEqual([[h.id, s1.id], []]);
          await pointIds(x.parts, m, moved);
          expect(await detachLane(x.parts, m, moved, cancelled, T0 + 13)).toBe(true);
          expect(await x.q.get(e1.id)).toMatchObject({ state: 'cancelled', chatId: old });
          const sent = await drain(x, T0 + 20);
          expect(sent.filter(([id]) => id.startsWith('shop/'))).toEqual(
            [h, s1].map((j) => [j.id, to]),
          );
          expect(sent.filter(([id]) => id.startsWith('evil/'))).toEqual([[e2.id, old]]);
          expect(await leftOver(x)).toBe(0);
        });

        it('should find a job whose id key the move repointed after the cancel read it', async () => {
          const x = await rig(partitions, on);
          const [old, to] = groups(x.parts);
          const [l, ids] = await heldLane(x, old);
          const m = (await markLane(x.parts, l, to))!;
          // The cancel reads the id key (the old partition), then the whole move runs, then its script.
          x.hooks.push({
            script: 'telegram_queue_cancel',
            step: '',
            run: async () => {
              const { moved, cancelled } = await adoptJobs(x.parts, m, T0 + 12);
              await pointIds(x.parts, m, moved);
              expect(await detachLane(x.parts, m, moved, cancelled, T0 + 13)).toBe(true);
            },
          });
          expect(await x.q.cancel(ids[1]!, T0 + 14)).toBe('cancelled');
          expect(await x.q.get(ids[1]!)).toMatchObject({ state: 'cancelled', chatId: to });
          const rest = ids.filter((_, i) => i !== 1);
          expect(await drain(x, T0 + 20)).toEqual(rest.map((id) => [id, to]));
          expect(await leftOver(x)).toBe(0);
        });

        for (const at of ['dest', 'source'] as const)
          it(`should hold a cancel whose ${at} step meets the adopt (it ran just before)`, async () => {
            const x = await rig(partitions, on);
            const [old, to] = groups(x.parts);
            const [l, ids] = await heldLane(x, old);
            const m = (await markLane(x.parts, l, to))!;
            let adopted: Awaited<ReturnType<typeof adoptJobs>> | undefined;
            x.hooks.push({
              script: 'telegram_queue_cancel',
              step: at,
              run: async () => void (adopted = await adoptJobs(x.parts, m, T0 + 12)),
            });
            expect(await x.q.cancel(ids[3]!, T0 + 11)).toBe('cancelled');
            await pointIds(x.parts, m, adopted!.moved);
            await detachLane(x.parts, m, adopted!.moved, adopted!.cancelled, T0 + 13);
            expect(await x.q.get(ids[3]!)).toMatchObject({ state: 'cancelled' });
            expect(await drain(x, T0 + 20)).toEqual(ids.slice(0, 3).map((id) => [id, to]));
            expect(await leftOver(x)).toBe(0);
          });

        for (const after of [0, 1, 2, 3, 4])
          it(`should collapse a moved job by a job with its key posted to the new id after step ${after} of 4`, async () => {
            const x = await rig(partitions, on);
            const [old, to] = groups(x.parts);
            const h = job(old, { id: `shop/n${process.pid}-${++seq}` });
            const a = job(old, { id: `shop/n${process.pid}-${++seq}`, collapseKey: 'shop/k' });
            await x.q.enqueue([h], T0);
            await x.q.enqueue([a], T0 + 1);
            const [l] = (await x.q.claim(T0 + 10, 30_000, 10)).leases;
            const b = job(to, { id: `shop/n${process.pid}-${++seq}`, collapseKey: 'shop/k' });
            let answer: string[] = [];
            await move(x, l!, to, async (i) => {
              if (i === after) answer = await x.q.enqueue([b], T0 + 11);
            });
            // Before the adopt: b holds the key there, and the adopt collapses a (older); after: b replaces a.
            expect(answer).toEqual([after >= 2 ? 'replaced' : 'queued']);
            expect(await x.q.get(a.id)).toMatchObject({ state: 'collapsed', collapsedBy: b.id });
            expect(await drain(x, T0 + 20)).toEqual([h, b].map((j) => [j.id, to]));
            expect(await leftOver(x)).toBe(0);
          });

        it('should not collapse a job marked as moving: a job with its key for the old id is queued beside it', async () => {
          const x = await rig(partitions, on);
          const [old, to] = groups(x.parts);
          const h = job(old, { id: `shop/k${process.pid}-${++seq}` });
          const a = job(old, { id: `shop/k${process.pid}-${++seq}`, collapseKey: 'shop/k' });
          await x.q.enqueue([h, a], T0);
          const [l] = (await x.q.claim(T0 + 10, 30_000, 10)).leases;
          const m = (await markLane(x.parts, l!, to))!;
          // Posted to the old id before the app knew of the move: a stays queued (its copy may be taken in).
          const b = job(old, { id: `shop/k${process.pid}-${++seq}`, collapseKey: 'shop/k' });
          expect(await x.q.enqueue([b], T0 + 11)).toEqual(['queued']);
          const { moved, cancelled } = await adoptJobs(x.parts, m, T0 + 12);
          await pointIds(x.parts, m, moved);
          expect(await detachLane(x.parts, m, moved, cancelled, T0 + 13)).toBe(true);
          expect(await x.q.get(a.id)).toMatchObject({ state: 'queued', chatId: to });
          expect(await x.q.get(b.id)).toMatchObject({ state: 'queued', chatId: old });
        });

        it('should finish a cancel whose process died between its two steps: the move takes the job out', async () => {
          const x = await rig(partitions, on);
          const [old, to] = groups(x.parts);
          const [l, ids] = await heldLane(x, old);
          const m = (await markLane(x.parts, l, to))!;
          x.hooks.push({
            script: 'telegram_queue_cancel',
            step: 'source',
            run: () => Promise.resolve(),
            fail: true,
          });
          await expect(x.q.cancel(ids[1]!, T0 + 11)).rejects.toThrow('cancelling process died');
          const { moved, cancelled } = await adoptJobs(x.parts, m, T0 + 12);
          expect(cancelled).toEqual([ids[1]]);
          await pointIds(x.parts, m, moved);
          expect(await detachLane(x.parts, m, moved, cancelled, T0 + 13)).toBe(true);
          expect(await x.q.get(ids[1]!)).toMatchObject({ state: 'cancelled', chatId: old });
          const rest = ids.filter((_, i) => i !== 1);
          expect(await drain(x, T0 + 20)).toEqual(rest.map((id) => [id, to]));
          expect(await leftOver(x)).toBe(0);
        });
      });
    }
  },
);
