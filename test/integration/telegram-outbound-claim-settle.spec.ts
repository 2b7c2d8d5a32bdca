/**
 * A claim in flight while the same instance puts a lane back (Redis, docs/telegram-outbound.md#queue): the
 * claim's script ran before the settle's, so it answers the lane still held (due at its lease end); that
 * answer must not hide the put-back lane from the next claim until the lease would have ended.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { RedisOutboundQueueStore } from '../../src/telegram/outbound/queue/redis-outbound-queue.store.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';
import { job } from '../support/telegram-outbound-stores.table.js';

const WEEK = 7 * 24 * 3600_000;
const T0 = 1_800_000_000_000;
const LEASE = 15_000;
let service: RedisService | undefined;

afterAll(async () => service?.onApplicationShutdown());

/**
 * The Redis queue store (`partitions`); `held` holds back the replies of claim scripts until released, and
 * `fail` makes claim scripts after the first `fail` of them throw (a command timeout) once they have run.
 */
async function store(partitions = 1) {
  service = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('tgs'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    }),
    new MetricsService(),
  );
  await service.onModuleInit();
  const r = service;
  const gate: { held?: Promise<void>; ran?: () => void; fail?: number } = {};
  const runner = {
    run: r.run.bind(r),
    script: (async (name: string, keys: string[], args: (string | number)[]) => {
      const reply = r.script(name, keys, args);
      if (name === 'telegram_queue_claim' && gate.fail !== undefined && gate.fail-- <= 0)
        return reply.then(() => Promise.reject(new Error('Command timed out')));
      if (name !== 'telegram_queue_claim' || !gate.held) return reply;
      const answer = await reply; // the script has run in Redis
      gate.ran?.();
      await gate.held;
      return answer;
    }) as RedisService['script'],
  };
  return { q: new RedisOutboundQueueStore(runner, r.tag.slice(1, -1), partitions, WEEK), gate };
}

describe.skipIf(!redisUrl())(
  'RedisOutboundQueueStore: a claim whose answer crosses a put-back',
  () => {
    it('should claim the put-back lane at its due time, not when its old lease would have ended', async () => {
      const { q, gate } = await store();
      const a = job('920001');
      await q.enqueue([a], T0);
      const [lease] = (await q.claim(T0, LEASE, 8, true)).leases;
      expect(lease?.job.id).toBe(a.id);
      // A second claim (past the partition's 100 ms recheck; idle: one pass) runs in Redis while the lane is
      // held: it answers the lane due at its lease end, and that answer is read late.
      let release!: () => void;
      gate.held = new Promise((res) => (release = res));
      const ran = new Promise<void>((res) => (gate.ran = res));
      const second = q.claim(T0 + 200, LEASE, 8, true);
      await ran;
      // Meanwhile the attempt puts the lane back (a retry), due 30 ms later.
      const back = { kind: 'wait', until: T0 + 230, state: 'queued' } as const;
      expect(await q.settle(lease!, back, T0 + 201)).toBe(true);
      gate.held = undefined;
      release();
      expect((await second).leases).toEqual([]);
      // The next claim, at the put-back time (well within the partition's 100 ms recheck), takes the lane.
      const next = await q.claim(T0 + 230, LEASE, 8, true);
      expect(next.leases.map((l) => l.job.id)).toEqual([a.id]);
    });

    it('should hand out the lanes a claim took before one of its calls failed', async () => {
      const { q, gate } = await store(4);
      // Lanes in every partition (12 chats over 4), all due.
      const jobs = Array.from({ length: 12 }, (_, i) => job(String(930_001 + i)));
      await q.enqueue(jobs, T0);
      // The first partition's call takes its lanes; the second call's reply is lost (it ran in Redis).
      gate.fail = 1;
      const got = await q.claim(T0, LEASE, 12, true);
      gate.fail = undefined;
      expect(got.leases.length).toBeGreaterThan(0);
      // Each job is claimed once: by that claim, or by the next (the failed call's lanes wait out their lease).
      const rest = await q.claim(T0 + 200, LEASE, 12, true);
      const all = [...got.leases, ...rest.leases].map((l) => l.job.id);
      expect(new Set(all).size).toBe(all.length);
      // A claim whose first call fails still fails (nothing taken to hand out).
      gate.fail = 0;
      await expect(q.claim(T0 + 400, LEASE, 12, true)).rejects.toThrow(/timed out/);
    });
  },
);
