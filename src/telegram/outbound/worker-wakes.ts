import type { Clock } from '../../common/clock.js';
import type { RedisBus } from '../../redis/redis-bus.js';
import type { RedisService } from '../../redis/redis.service.js';
import type { OutboundQueueStore } from './queue/outbound-queue.store.js';
import type { PartitionOwners } from './queue/partition-owners.js';
import { liftChannel, wakeChannel } from './queue/redis-outbound-queue.store.js';
import { RedisWorkerRoster, rosterChannel, rosterTimes } from './queue/redis-worker-roster.js';

/** Whom the messages of the sender's channels reach in this process. */
export interface WakeTargets {
  /** A lane due at `due` (epoch ms) was queued in partition `k`, one this worker owns (undefined: anywhere). */
  notify(due: number, k?: number): void;
  /** A bot's cooldown was lifted early ('' : the bus reconnected, a lift may have been missed). */
  lift(bot: string): void;
  /** The roster of workers changed: beat now and share the partitions out again. */
  roster(): void;
}

/**
 * Subscribes the sender's channels on the service's pub/sub connection: one wake channel per queue
 * partition, where a message wakes the partition's owner only (the others note it, for stealing:
 * PartitionOwners.heard), the channel of versions that named no partition (it wakes every worker), the
 * lift channel and the roster's. Resolves with the unsubscribe once Redis acknowledged every SUBSCRIBE.
 */
export async function subscribeWakes(
  bus: RedisBus,
  base: string,
  owners: PartitionOwners,
  to: WakeTargets,
): Promise<() => void> {
  const partition = (k: number) => (m: string) => {
    if (owners.owns(k)) to.notify(Number(m), k);
    else owners.heard(k, Number(m));
  };
  const channels: [string, (m: string) => void][] = [
    [wakeChannel(base), (m) => to.notify(Number(m))],
    ...Array.from({ length: owners.partitions }, (_, k) => [wakeChannel(base, k), partition(k)]),
    [liftChannel(base), (bot) => to.lift(bot)],
    [rosterChannel(base), () => to.roster()],
  ] as [string, (m: string) => void][];
  const offs = await Promise.all(channels.map(([c, h]) => bus.on(c, h)));
  // `on` gives up waiting after a while (Redis slow or down at boot): live means acknowledged, not timed out.
  await Promise.all(channels.map(([c]) => bus.confirmed(c)));
  return () => offs.forEach((off) => off());
}

/** What a worker of this process needs to take its share of the partitions. */
export interface ShareParts {
  bus: RedisBus;
  /** The sender's Redis connection (the roster's beats). */
  redis: Pick<RedisService, 'script'>;
  base: string;
  owners: PartitionOwners;
  clock: Clock;
  leaseMs: number;
  queue: Pick<OutboundQueueStore, 'forget'>;
  worker: { notify(due: number, k?: number): void; wake(): void };
  lift(bot: string): void;
}

/**
 * Joins the workers' roster (RedisWorkerRoster: partitions gained are looked at again, the worker woken) and
 * subscribes the channels. `live` resolves once Redis acknowledged the subscriptions, after which the worker
 * claims once over every partition it owns; `unwatch` unsubscribes; `leave` also leaves the roster, so the
 * other workers take this one's partitions over at once.
 */
export function takeShare(p: ShareParts): {
  live: Promise<void>;
  unwatch: () => void;
  leave: () => Promise<void>;
} {
  const roster = new RedisWorkerRoster(
    p.redis,
    p.base,
    p.owners,
    p.clock,
    rosterTimes(p.leaseMs),
    (gained) => {
      for (const k of gained) p.queue.forget?.(k);
      p.worker.wake();
    },
  );
  roster.start();
  let off: (() => void) | undefined;
  let closed = false;
  const live = subscribeWakes(p.bus, p.base, p.owners, {
    notify: (due, k) => p.worker.notify(due, k),
    lift: (bot) => p.lift(bot),
    roster: () => void roster.beat(),
  }).then((o) => {
    off = o;
    if (closed) return o();
    // A job queued before the SUBSCRIBEs were acknowledged was announced to no one here, and the worker's
    // claims may have looked at its partition just before: one claim now, over every partition this worker
    // owns, what it noted of them forgotten (else the job waited for the safety poll).
    p.queue.forget?.();
    p.worker.wake();
  });
  const close = () => {
    closed = true;
    off?.();
  };
  return {
    live,
    // The channels only (the roster stays): what a lost subscription looks like (an e2e drives it).
    unwatch: close,
    leave: async () => {
      close();
      await roster.stop();
    },
  };
}
