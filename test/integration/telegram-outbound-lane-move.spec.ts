/**
 * A chat lane's move in Redis cut short (the worker died between its steps, redis-lane-move.ts): the jobs are
 * in the new lane and still in the old one. The old lane's lease ends, it is claimed again and moved again:
 * every job is sent once, to the new id, in posting order.
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
const services: RedisService[] = [];

afterAll(async () => Promise.all(services.map((s) => s.onApplicationShutdown())));

/** The store, and a switch that makes its detach step fail (the worker "dies" after the adopt). */
async function store(partitions: number) {
  const r = new RedisService(
    loadAppConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL: redisUrl(),
      RAMPART_ENV: uniqueEnv('tgv'),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    }),
    new MetricsService(),
  );
  await r.onModuleInit();
  services.push(r);
  const crash = { detach: true };
  const cut = {
    run: r.run.bind(r),
    script: ((name: string, keys: string[], args: (string | number)[]) => {
      if (name === 'telegram_queue_detach' && crash.detach)
        return Promise.reject(new Error('worker died'));
      return r.script(name, keys, args);
    }) as RedisService['script'],
  };
  return { q: new RedisOutboundQueueStore(cut, r.tag.slice(1, -1), partitions, WEEK), crash };
}

describe.skipIf(!redisUrl())('RedisOutboundQueueStore: a lane move cut short', () => {
  for (const partitions of [4, 1])
    it(`should send each job once, to the new id, in order, after the move is done again (${partitions} partition(s))`, async () => {
      const { q, crash } = await store(partitions);
      const n = 7_900_000 + (process.pid % 1000) * 10 + partitions;
      const [old, to] = [`-${n}`, `-100${n}`];
      expect(old).not.toBe(to);
      const js = [0, 1, 2].map((i) =>
        job(old, { id: `shop/cut${process.pid}-${partitions}-${i}` }),
      );
      for (const [i, j] of js.entries()) await q.enqueue([j], T0 + i);
      const [l] = (await q.claim(T0 + 10, 1_000, 10)).leases;
      await expect(q.migrate(l!, to, T0 + 11)).rejects.toThrow('worker died');
      crash.detach = false;
      // The lease ends (its worker is gone); the old lane's next holder moves it again, sends nothing.
      const sent: [string, string][] = [];
      for (let i = 0, now = T0 + 2_000; i < 20; i++, now++) {
        const { leases } = await q.claim(now, 1_000, 10);
        if (leases.length === 0) break;
        for (const x of leases) {
          if (x.movedTo !== undefined) {
            expect(x.movedTo).toBe(to);
            expect(await q.migrate(x, to, now)).toEqual(js.map((j) => j.id));
            continue;
          }
          sent.push([x.job.id, x.job.chatId]);
          expect(await q.settle(x, { kind: 'sent', bot: 'b' }, now)).toBe(true);
        }
      }
      expect(sent).toEqual(js.map((j) => [j.id, to]));
      expect(await q.depth()).toBe(0);
    });
});
