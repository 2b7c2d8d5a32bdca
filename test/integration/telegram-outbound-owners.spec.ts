/**
 * Partition owners on a real Redis: two or three workers (each its roster beat, its queue store, its
 * subscriptions, on one pub/sub connection as in one process) share the queue's partitions out; a job's wake
 * message reaches only the owner of its partition, a worker claims only from its own partitions, a dead
 * worker's partitions (and the lanes it held) are taken over within its lease, and a lane no owner claims is
 * taken by another worker once it waited past the bound. Times are the test's (a manual clock): nothing waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/common/clock.js';
import { RedisBus } from '../../src/redis/redis-bus.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import type { Lease } from '../../src/telegram/outbound/queue/outbound-queue.store.js';
import { partitionOf } from '../../src/telegram/outbound/queue/queue-partitions.js';
import {
  PartitionOwners,
  assignPartitions,
} from '../../src/telegram/outbound/queue/partition-owners.js';
import { RedisOutboundQueueStore } from '../../src/telegram/outbound/queue/redis-outbound-queue.store.js';
import {
  RedisWorkerRoster,
  rosterTimes,
} from '../../src/telegram/outbound/queue/redis-worker-roster.js';
import { subscribeWakes } from '../../src/telegram/outbound/worker-wakes.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { connectRedisService } from '../support/redis-service.js';
import { job } from '../support/telegram-outbound-stores.table.js';

const WEEK = 7 * 24 * 3600_000;
const P = 8;
const LEASE = 30_000;
const TIMES = rosterTimes(LEASE);
const T0 = 1_800_000_000_000;

interface Worker {
  id: string;
  owners: PartitionOwners;
  store: RedisOutboundQueueStore;
  roster: RedisWorkerRoster;
  /** Partitions whose wake message woke this worker. */
  woken: number[];
  gained: number[];
  /** Unsubscribes its channels (a worker killed hears nothing more, and beats no more). */
  off: () => void;
}

let redis: RedisService | undefined;
afterEach(async () => redis?.onApplicationShutdown());

/** `n` workers on one fresh key space, each beaten in once; and the API's store (it owns nothing). */
async function rig(n: number, clock: ManualClock) {
  const r = (redis = await connectRedisService({ RAMPART_ENV: uniqueEnv('tgp') }));
  const base = r.tag.slice(1, -1);
  const bus = new RedisBus(r);
  const workers: Worker[] = [];
  for (let i = 1; i <= n; i++) {
    const owners = new PartitionOwners(P, TIMES.liveMs, `w${i}`);
    const w: Worker = {
      id: `w${i}`,
      owners,
      store: new RedisOutboundQueueStore(r, base, P, WEEK, undefined, owners),
      roster: undefined!,
      woken: [],
      gained: [],
      off: () => undefined,
    };
    w.roster = new RedisWorkerRoster(r, base, owners, clock, TIMES, (g) => w.gained.push(...g));
    w.off = await subscribeWakes(bus, base, owners, {
      notify: (_, k) => w.woken.push(k ?? -1),
      lift: () => undefined,
      roster: () => void w.roster.beat(),
    });
    workers.push(w);
  }
  for (const w of workers) await w.roster.beat();
  // Each has seen the whole roster (a joiner's announcement makes the others beat again).
  await shared(workers);
  return { api: new RedisOutboundQueueStore(r, base, P, WEEK), workers };
}

/** Resolves once each of `workers` owns its share of a roster of exactly these workers. */
async function shared(workers: Worker[]): Promise<void> {
  const owner = assignPartitions(
    workers.map((w) => w.id),
    P,
  );
  const agreed = () =>
    workers.every((w) => owner.every((id, k) => w.owners.owns(k) === (id === w.id)));
  for (let i = 0; !agreed(); i++) {
    if (i > 200) throw new Error('the workers did not agree on the roster in 10 s');
    // A beat already in flight may predate the last change: each worker beats again.
    if (i % 10 === 9) await Promise.all(workers.map((w) => w.roster.beat()));
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; !ok(); i++) {
    if (i > 400) throw new Error('condition not reached in 20 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const jobs = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => job(String(from + i)));
const partition = (l: Lease) => partitionOf(l.lane, P);

describe.skipIf(!redisUrl())('Outbound queue partition owners (redis)', { timeout: 60_000 }, () => {
  it.each([2, 3])(
    'should wake only the owner of the partition a job is queued in, and let it alone claim it (%i workers)',
    async (n) => {
      const { api, workers } = await rig(n, new ManualClock(T0));
      const queued = jobs(700_000, 40);
      await api.enqueue(queued, T0);
      // One message per new lane (40 chats); every handler of a message runs in one go (one connection).
      await until(() => workers.reduce((s, w) => s + w.woken.length, 0) >= 40);
      for (const w of workers) expect(w.woken.every((k) => w.owners.owns(k))).toBe(true);
      const woken = workers.flatMap((w) => w.woken);
      expect(woken).toHaveLength(40);
      expect(new Set(woken).size).toBeGreaterThan(n);
      // Claims: each worker gets the lanes of its own partitions, none of another's (not waiting long enough).
      const got = new Map<string, string[]>();
      for (const w of workers) {
        const { leases } = await w.store.claim(T0 + 10, LEASE, 100);
        expect(leases.every((l) => w.owners.owns(partition(l)))).toBe(true);
        got.set(
          w.id,
          leases.map((l) => l.job.id),
        );
      }
      expect([...got.values()].flat().sort()).toEqual(queued.map((j) => j.id).sort());
    },
  );

  it("should hand a dead worker's partitions, and the lanes it held, to the workers alive within its lease", async () => {
    const clock = new ManualClock(T0);
    const { api, workers } = await rig(3, clock);
    const [a, b, dead] = workers as [Worker, Worker, Worker];
    await api.enqueue(jobs(710_000, 40), T0);
    const held = (await dead.store.claim(T0, LEASE, 100)).leases;
    expect(held.length).toBeGreaterThan(0);
    const its = [...Array(P).keys()].filter((k) => dead.owners.owns(k));
    dead.off();
    a.gained.length = b.gained.length = 0;
    // It stops beating (kill -9), the others beat on: once its last beat is older than the liveness window,
    // the next beat drops it and announces the change; the two left share every partition.
    for (let t = 0; t <= TIMES.liveMs; t += TIMES.beatMs) {
      clock.advance(TIMES.beatMs);
      await Promise.all([a.roster.beat(), b.roster.beat()]);
    }
    expect(clock.now() - T0).toBeLessThan(LEASE);
    await shared([a, b]);
    // Told what they gained (to claim there at once): every partition of the dead one.
    expect(its.every((k) => [...a.gained, ...b.gained].includes(k))).toBe(true);
    for (const w of [a, b]) expect(w.gained.every((k) => w.owners.owns(k))).toBe(true);
    // A job queued now in one of its partitions wakes its new owner.
    a.woken.length = b.woken.length = dead.woken.length = 0;
    await api.enqueue(jobs(720_000, 40), clock.now());
    await until(() => a.woken.length + b.woken.length >= 40);
    expect([...a.woken, ...b.woken].some((k) => its.includes(k))).toBe(true);
    for (const w of [a, b]) expect(w.woken.every((k) => w.owners.owns(k))).toBe(true);
    // When the lanes it held come due again (their lease ended), their new owners reclaim them.
    const after = T0 + LEASE + 1;
    const back = [
      ...(await a.store.claim(after, LEASE, 200)).leases,
      ...(await b.store.claim(after, LEASE, 200)).leases,
    ].filter((l) => l.reclaimed);
    expect(back.map((l) => l.job.id).sort()).toEqual(held.map((l) => l.job.id).sort());
  });

  it("should let a worker with nothing to do take lanes that waited past the bound in another's partition", async () => {
    const { api, workers } = await rig(2, new ManualClock(T0));
    const [a, b] = workers as [Worker, Worker];
    await api.enqueue(jobs(730_000, 40), T0);
    // b is alive (it beats) but claims nothing, e.g. stuck: a leaves b's lanes alone until the bound.
    const mine = (await a.store.claim(T0, LEASE, 100)).leases;
    expect(mine.every((l) => a.owners.owns(partition(l)))).toBe(true);
    expect(mine.length).toBeLessThan(40);
    const early = await a.store.claim(T0 + TIMES.liveMs - 1, LEASE, 100);
    expect(early.leases).toEqual([]);
    // Once they waited that long, a takes them all (it looks at each of b's partitions once per bound).
    const late = await a.store.claim(T0 + TIMES.liveMs, LEASE, 100);
    expect(late.leases.length).toBe(40 - mine.length);
    expect(late.leases.every((l) => b.owners.owns(partition(l)))).toBe(true);
  });
});
