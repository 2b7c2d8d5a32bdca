/**
 * One outbound worker on a real Redis, assembled as OutboundWorkers.start does (its queue store, roster and
 * subscriptions: takeShare), with the order of its events in the test's hands: a bus whose subscriptions wait
 * (SlowBus) or whose wait for them gives up at once (HastyBus), claim replies held back, a manual clock, and
 * a stand-in for the send that records each lease (test/integration/telegram-outbound-wake-start.spec.ts).
 */
import { ManualClock } from '../../src/common/clock.js';
import { RedisBus } from '../../src/redis/redis-bus.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { OUTBOUND_DEFAULTS } from '../../src/telegram/outbound/outbound.settings.js';
import type { Claimed, Lease } from '../../src/telegram/outbound/queue/outbound-queue.store.js';
import { PartitionOwners } from '../../src/telegram/outbound/queue/partition-owners.js';
import type { Runner } from '../../src/telegram/outbound/queue/redis-queue.parts.js';
import { RedisOutboundQueueStore } from '../../src/telegram/outbound/queue/redis-outbound-queue.store.js';
import { rosterTimes } from '../../src/telegram/outbound/queue/redis-worker-roster.js';
import { OutboundWorker } from '../../src/telegram/outbound/worker/outbound-worker.js';
import type { SendAttempt } from '../../src/telegram/outbound/worker/send-attempt.js';
import { takeShare } from '../../src/telegram/outbound/worker-wakes.js';
import { uniqueEnv } from './redis-env.js';
import { connectRedisService } from './redis-service.js';

const WEEK = 7 * 24 * 3600_000;
export const LEASE = 30_000;
export const T0 = 1_800_000_000_000;
export const settings = { ...OUTBOUND_DEFAULTS, safetyPollMs: 60_000, pollMs: 20, leaseMs: LEASE };

/** A bus whose subscriptions start only once `open` is called: what is published before reaches no one. */
export class SlowBus extends RedisBus {
  private opened!: () => void;
  private readonly gate = new Promise<void>((r) => (this.opened = r));
  open(): void {
    this.opened();
  }
  override async on(channel: string, handler: (m: string) => void): Promise<() => void> {
    await this.gate;
    return super.on(channel, handler);
  }
}

/**
 * A bus whose waits for Redis give up at once (`on`'s timeout, as on a loaded machine or with Redis down at
 * boot) over a subscriber connection whose SUBSCRIBEs are sent only once `open` is called.
 */
export class HastyBus extends RedisBus {
  subscribes = 0;
  private opened!: () => void;
  private readonly gate = new Promise<void>((r) => (this.opened = r));
  constructor(redis: RedisService) {
    const sub = redis.subscriber()!;
    const subscribe = sub.subscribe.bind(sub) as (c: string) => Promise<unknown>;
    (sub as unknown as { subscribe: (c: string) => Promise<unknown> }).subscribe = (c) => {
      this.subscribes++;
      return this.gate.then(() => subscribe(c));
    };
    super(Object.create(redis, { subscriber: { value: () => sub } }) as RedisService);
  }
  open(): void {
    this.opened();
  }
  override on(channel: string, handler: (m: string) => void): Promise<() => void> {
    return super.on(channel, handler, 0);
  }
}

/** Holds the reply of claim calls while `held` is set (the call has run in Redis); `release` lets them through. */
function holdingClaims(redis: RedisService) {
  const h = { armed: false, ran: 0, release: () => undefined as void };
  let gate = Promise.resolve();
  const runner: Runner = {
    run: (op, fn) => redis.run(op, fn),
    script: async <T>(
      name: string,
      keys: readonly string[],
      args: readonly (string | number)[],
    ) => {
      const r = await redis.script<T>(name, keys, args);
      if (name === 'telegram_queue_claim' && h.armed) {
        h.armed = false;
        gate = new Promise<void>((ok) => (h.release = ok));
        h.ran++;
        await gate;
      }
      return r;
    },
  };
  return { h, runner };
}

export async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; !ok(); i++) {
    if (i > 200) throw new Error(`${what}: not within 10 s (the safety poll is 60 s)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One worker on a fresh key space with `partitions` partitions, as OutboundWorkers.start assembles it. */
export async function wakeRig(partitions: number, bus: (r: RedisService) => RedisBus) {
  const clock = new ManualClock(T0);
  const r = await connectRedisService({ RAMPART_ENV: uniqueEnv('tgws') });
  const base = r.tag.slice(1, -1);
  const owners = new PartitionOwners(partitions, rosterTimes(LEASE).liveMs);
  const { h, runner } = holdingClaims(r);
  const queue = new RedisOutboundQueueStore(runner, base, partitions, WEEK, undefined, owners);
  const claims: Claimed[] = [];
  const claim = queue.claim.bind(queue);
  queue.claim = async (...a) => {
    const c = await claim(...a);
    claims.push(c);
    return c;
  };
  const sent: Lease[] = [];
  const attempt = {
    run: (l: Lease) => (sent.push(l), Promise.resolve()),
    room: () => ({ at: 0, lanes: Infinity }),
    recheck: () => Promise.resolve(),
  } as unknown as SendAttempt;
  const worker = new OutboundWorker(queue, attempt, { ...settings, partitions }, clock);
  const heard: number[] = [];
  const b = bus(r);
  worker.start();
  const share = takeShare({
    ...{ bus: b, redis: r, base, owners, clock, leaseMs: LEASE, queue },
    worker: {
      notify: (due, k) => (heard.push(k ?? -1), worker.notify(due, k)),
      wake: () => worker.wake(),
    },
    lift: () => undefined,
  });
  const stop = () => Promise.all([worker.stop(), share.leave()]).then(() => undefined);
  const api = new RedisOutboundQueueStore(r, base, partitions, WEEK);
  return { api, share, claims, sent, heard, hold: h, bus: b, worker, clock, redis: r, stop };
}
