/**
 * A job queued while a worker is starting, or while one of its claims is on the way back, is claimed at once,
 * not at the safety poll (60 s here, past the test): on a real Redis, a real worker (OutboundWorker, its
 * queue store, roster and subscriptions: takeShare), the order of events forced (no race left to chance):
 * - the job is queued after the worker's first claim looked at its partition and before Redis acknowledged
 *   the worker's SUBSCRIBEs (its wake message reaches no one): the claim that follows the acknowledgement
 *   finds it (it once passed the partition over, as still seen empty);
 * - the job's wake message is read before the reply of the claim call that looked at its partition just
 *   before it was queued (two connections: either may be read first): the claim the message asks for finds it
 *   (the stale "nothing due" once hid it);
 * - the worker's subscriptions count as live (its claim over every partition) only once Redis acknowledged
 *   them, not when `on`'s wait for that gave up.
 * Time stands still (a manual clock): what a claim noted of a partition never grows old by itself.
 */ import { afterEach, describe, expect, it } from 'vitest';
import { RedisBus } from '../../src/redis/redis-bus.js';
import type { RedisService } from '../../src/redis/redis.service.js';
import { PartitionOwners } from '../../src/telegram/outbound/queue/partition-owners.js';
import { PARTITION_RECHECK_MS } from '../../src/telegram/outbound/queue/redis-queue.hints.js';
import { rosterTimes } from '../../src/telegram/outbound/queue/redis-worker-roster.js';
import { subscribeWakes } from '../../src/telegram/outbound/worker-wakes.js';
import {
  HastyBus,
  LEASE,
  SlowBus,
  T0,
  settings,
  until,
  wakeRig,
} from '../support/outbound-wake-rig.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { connectRedisService } from '../support/redis-service.js';
import { job } from '../support/telegram-outbound-stores.table.js';

let redis: RedisService | undefined;
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
  await redis?.onApplicationShutdown();
  redis = undefined;
});

/** wakeRig, closed after the test. */
async function rig(partitions: number, bus: (r: RedisService) => RedisBus) {
  const w = await wakeRig(partitions, bus);
  redis = w.redis;
  stop = w.stop;
  return w;
}

describe.skipIf(!redisUrl())('Outbound worker wake-ups at start and mid-claim (redis)', () => {
  it('should claim a job queued after its first claim and before its subscriptions were acknowledged', async () => {
    const { api, share, claims, sent, bus } = await rig(4, (r) => new SlowBus(r));
    // The worker's first claim looked at every partition (nothing there), then it sleeps.
    await until(() => claims.length >= 1, 'first claim');
    const j = job('940001');
    expect(await api.enqueue([j], T0)).toEqual(['queued']);
    // Its wake message reached no one; now Redis acknowledges the subscriptions.
    (bus as SlowBus).open();
    await share.live;
    await until(() => sent.length === 1, 'the job queued before the subscriptions');
    expect(sent[0]!.job.id).toBe(j.id);
  });

  it('should claim a job whose wake message was read before the reply of the claim that just missed it', async () => {
    const { api, share, claims, sent, heard, hold, worker, clock } = await rig(
      1,
      (r) => new RedisBus(r),
    );
    await share.live;
    await until(() => claims.length >= 2, 'the claims at start and once live');
    // A claim looks at the partition again (what the last one saw of it is old) and finds nothing there yet;
    // its reply is held back.
    clock.advance(PARTITION_RECHECK_MS);
    hold.armed = true;
    worker.wake();
    await until(() => hold.ran === 1, 'the claim call');
    const seen = claims.length;
    const j = job('940002');
    expect(await api.enqueue([j], T0)).toEqual(['queued']);
    // The job's wake message is read first, then the claim's reply (nothing due).
    await until(() => heard.length >= 1, 'the wake message');
    hold.release();
    await until(() => claims.length > seen, 'the held claim');
    // The message asked for a claim `pollMs` after the last: that one looks at the partition.
    clock.advance(settings.pollMs);
    await until(() => sent.length === 1, 'the job whose message came before the reply');
    expect(sent[0]!.job.id).toBe(j.id);
  });

  it('should count the subscriptions live once Redis acknowledged them, not when the wait for it gave up', async () => {
    const r = (redis = await connectRedisService({ RAMPART_ENV: uniqueEnv('tgws') }));
    const bus = new HastyBus(r);
    const owners = new PartitionOwners(4, rosterTimes(LEASE).liveMs);
    const to = { notify: () => undefined, lift: () => undefined, roster: () => undefined };
    let live = false;
    const subscribed = subscribeWakes(bus, r.tag.slice(1, -1), owners, to).then((off) => {
      live = true;
      return off;
    });
    // Every channel asked for (1 + 4 partitions + lift + roster) and each wait given up (0 ms timers, run
    // before this one): what is published now still reaches no one, so the worker must not claim yet.
    await until(() => bus.subscribes === 7, 'the subscriptions asked for');
    await new Promise((ok) => setTimeout(ok, 50));
    expect(live).toBe(false);
    bus.open();
    (await subscribed)();
    expect(live).toBe(true);
  });
});
