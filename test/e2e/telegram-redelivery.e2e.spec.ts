import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotBackend, startFakeBotBackend } from '../support/fake-bot-backend.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

/** The bot's breaker stays closed here: this file is about charges, the breaker's refusals have their own tests. */
function quietBreaker(c: RampartConfig): RampartConfig {
  const cb = c.policies['telegram-demo']!.locks.circuitBreaker as Record<string, unknown>;
  cb.volumeThreshold = 1_000;
  return c;
}

/** A counter's value in the app's /metrics (0 when the series is absent). */
async function counter(app: RunningApp, series: string): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const STORES = [
  { adapter: 'express', store: 'memory' },
  { adapter: 'fastify', store: 'redis' },
] as const;

describe.each(STORES)(
  'Telegram forward mode, redeliveries during an outage ($adapter, $store)',
  (cfg) => {
    let redis: RedisProcess | undefined;
    let be: FakeBotBackend;
    let app: RunningApp;

    beforeAll(async () => {
      if (cfg.store === 'redis') redis = await startRedis();
      be = await startFakeBotBackend();
      app = await startApp(
        {
          HTTP_ADAPTER: cfg.adapter,
          REDIS_URL: redis?.url,
          RAMPART_ENV: uniqueEnv('tgr'),
          CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'forward', backendUrl: be.url }]),
        },
        { search: 'empty', config: quietBreaker },
      );
    });
    afterAll(async () => {
      await app?.close();
      await be?.close();
      await redis?.stop();
    });

    it.skipIf(cfg.store === 'redis' && !canStartRedis())(
      'should deliver an update redelivered through an outage once, and charge it once',
      async () => {
        // `/ask` costs 5 of the user's 15 `ask` tokens: a fourth charge of one update would drop it as limited.
        const u = textUpdate('/ask what is rampart', 424242);
        be.down = true;
        const during: number[] = [];
        // Telegram redelivers while the backend is down (300 ms apart in the field; sequential here).
        for (let i = 0; i < 5; i++) {
          const res = await deliver(app.url, u);
          await res.arrayBuffer();
          during.push(res.status);
        }
        expect(during).toEqual([502, 502, 502, 502, 502]);
        expect(be.updates).not.toContain(u.update_id);
        be.down = false;
        const back = await deliver(app.url, u);
        expect(back.status).toBe(200);
        expect(be.updates.filter((id) => id === u.update_id)).toHaveLength(1);
        // Delivered: the claim is kept, a later copy is a duplicate.
        expect((await deliver(app.url, u)).status).toBe(200);
        expect(be.updates.filter((id) => id === u.update_id)).toHaveLength(1);
        // Charged once: one allowed decision of the `ask` rule, every redelivery re-entered on the kept charge.
        const rl = 'rampart_ratelimit_decisions_total{policy="telegram-demo"';
        expect(await counter(app, `${rl},rule="ask",outcome="allowed"}`)).toBe(1);
        expect(await counter(app, `${rl},rule="ask",outcome="rejected"}`)).toBe(0);
        expect(await counter(app, `${rl},rule="update",outcome="reentered"}`)).toBe(5);
        expect(await counter(app, `${rl},rule="update",outcome="duplicate"}`)).toBe(1);
      },
    );
  },
);
