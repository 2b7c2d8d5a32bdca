import { afterAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { RedisOutboundQueueStore } from '../../src/telegram/outbound/queue/redis-outbound-queue.store.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { job } from '../support/telegram-outbound-stores.table.js';

const WEEK = 7 * 24 * 3600_000;
const T0 = 1_800_000_000_000;
let service: RedisService | undefined;

afterAll(async () => service?.onApplicationShutdown());

/** The Redis queue store over 4 partitions, and how many claim scripts it has run. */
async function store() {
  service = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('tgc'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    }),
    new MetricsService(),
  );
  await service.onModuleInit();
  const r = service;
  const n = { claims: 0 };
  const counting = {
    run: r.run.bind(r),
    script: ((name: string, keys: string[], args: (string | number)[]) => {
      if (name === 'telegram_queue_claim') n.claims++;
      return r.script(name, keys, args);
    }) as RedisService['script'],
  };
  return { q: new RedisOutboundQueueStore(counting, r.tag.slice(1, -1), 4, WEEK), n };
}

describe.skipIf(!redisUrl())('RedisOutboundQueueStore: claims of a worker with nothing due', () => {
  // Idle claims (one pass over the partitions) keep the count simple; a busy worker's first pass skips alike.
  it('should pass over partitions seen with nothing due, until it queues, settles, is told or 100 ms pass', async () => {
    const { q, n } = await store();
    const a = job('900001', { notBefore: T0 + 60_000 });
    await q.enqueue([a], T0);
    expect((await q.claim(T0, 1_000, 8, true)).leases).toEqual([]);
    const seen = n.claims;
    // Nothing due anywhere: the next claims ask nothing (their nextAt still says when a is due).
    expect(await q.claim(T0 + 10, 1_000, 8, true)).toEqual({ leases: [], nextAt: T0 + 60_000 });
    expect(n.claims).toBe(seen);
    // Another instance queued something (the wake channel): every partition is asked again.
    q.forget();
    await q.claim(T0 + 20, 1_000, 8, true);
    expect(n.claims).toBe(seen + 4);
    // A job queued here: its partition is asked again at once (the others are still passed over).
    const b = job('900002');
    await q.enqueue([b], T0 + 30);
    const got = await q.claim(T0 + 30, 1_000, 8, true);
    expect(got.leases.map((l) => l.job.id)).toEqual([b.id]);
    expect(n.claims).toBe(seen + 5);
    // A lane this instance puts back is seen at its time; what others do, at most 100 ms late.
    await q.settle(got.leases[0]!, { kind: 'wait', until: T0 + 50, state: 'queued' }, T0 + 40);
    expect((await q.claim(T0 + 50, 1_000, 8, true)).leases.map((l) => l.job.id)).toEqual([b.id]);
    const before = n.claims;
    await q.claim(T0 + 60, 1_000, 8, true);
    expect(n.claims).toBe(before);
    await q.claim(T0 + 200, 1_000, 8, true);
    expect(n.claims).toBe(before + 4);
  });

  it('should hand out the oldest due lane first, whatever its partition', async () => {
    const { q } = await store();
    // Lanes due one ms apart, over the 4 partitions as their chats hash.
    const jobs = Array.from({ length: 12 }, (_, i) =>
      job(String(910_001 + i), { notBefore: T0 + i }),
    );
    await q.enqueue(jobs, T0 - 10);
    expect((await q.claim(T0 - 10, 60_000, 8, true)).leases).toEqual([]);
    // One lane a claim: in due order, not the partitions in turn (a partition that drew more lanes drained
    // last, its chats' later jobs the tail of a backlog).
    const order: string[] = [];
    for (let i = 0; i < jobs.length; i++)
      order.push(...(await q.claim(T0 + 100, 60_000, 1)).leases.map((l) => l.job.id));
    expect(order).toEqual(jobs.map((j) => j.id));
  });
});
