import { afterAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/app.config.js';
import { systemClock } from '../../src/common/clock.js';
import { MetricsService } from '../../src/metrics/metrics.service.js';
import { RedisService } from '../../src/redis/redis.service.js';
import { MemorySendGateStore } from '../../src/telegram/outbound/gate/memory-send-gate.store.js';
import { RedisSendGateStore } from '../../src/telegram/outbound/gate/redis-send-gate.store.js';
import type { SendGateStore } from '../../src/telegram/outbound/gate/send-gate.store.js';
import { OUTBOUND_DEFAULTS } from '../../src/telegram/outbound/outbound.settings.js';
import type { Lease } from '../../src/telegram/outbound/queue/outbound-queue.store.js';
import type { AttemptParts } from '../../src/telegram/outbound/worker/attempt-parts.js';
import { BotPacing } from '../../src/telegram/outbound/worker/bot-pacing.js';
import { SendAttempt } from '../../src/telegram/outbound/worker/send-attempt.js';
import type { BotConfig } from '../../src/telegram/telegram.types.js';
import { redisUrl, uniqueEnv } from '../support/redis-env.js';

const bot = { id: 'a', scope: 'default' } as BotConfig;
const services: RedisService[] = [];

afterAll(() => Promise.all(services.map((s) => s.onApplicationShutdown())));

/** A real gate whose departure check fails as a Redis that went away does. */
function failingDepart(gate: SendGateStore): SendGateStore {
  gate.depart = () => Promise.reject(new Error('Command timed out'));
  return gate;
}

/** A send attempt on `gate`, everything else answering yes; the send itself is never made. */
function attempt(gate: SendGateStore) {
  const sent = { n: 0 };
  const noop = { inc: () => undefined, observe: () => undefined };
  const p = {
    queue: { settle: () => Promise.resolve(true) },
    gate,
    migrations: { get: () => Promise.resolve(undefined) },
    routing: { route: () => Promise.resolve(bot), invalidate: () => undefined },
    pacing: new BotPacing(systemClock),
    tokens: {
      api: () => ({ raw: { sendMessage: () => (sent.n++, Promise.resolve({ message_id: 1 })) } }),
      token: () => 'x',
    },
    health: { out: () => false, success: () => undefined, failure: () => undefined },
    settings: OUTBOUND_DEFAULTS,
    metrics: { sent: noop, lag: noop, dead: noop },
    clock: systemClock,
  } as unknown as AttemptParts;
  return { a: new SendAttempt(p), sent };
}

const lease = (): Lease => ({
  lane: 'l1',
  token: 't1',
  reclaimed: false,
  expires: Date.now() + 60_000,
  lost: [],
  job: {
    id: 'j1',
    chatId: '101',
    method: 'sendMessage',
    payload: { text: 'x' },
    scope: 'default',
    priority: 'normal',
    deadline: Date.now() + 60_000,
    notBefore: 0,
    createdAt: Date.now(),
    attempts: 0,
    state: 'sending',
  } as unknown as Lease['job'],
});

function runTable(make: () => Promise<SendGateStore>) {
  it('should release the in-flight mark at once when the departure check throws', async () => {
    const gate = failingDepart(await make());
    const { a, sent } = attempt(gate);
    await expect(a.run(lease())).rejects.toThrow('Command timed out');
    expect(sent.n).toBe(0);
    // Not when the mark lapses (inflightMs: the request timeout past the horizon, seconds away).
    expect(await gate.inflight(bot.id)).toBe(0);
  });
}

describe('SendAttempt on MemorySendGateStore: a departure check that throws', () => {
  runTable(() => Promise.resolve(new MemorySendGateStore(systemClock)));
});

describe.skipIf(!redisUrl())(
  'SendAttempt on RedisSendGateStore: a departure check that throws',
  () => {
    runTable(async () => {
      const r = new RedisService(
        loadAppConfig({
          LOG_LEVEL: 'silent',
          REDIS_URL: redisUrl(),
          RAMPART_ENV: uniqueEnv('tgd'),
        }),
        new MetricsService(),
      );
      await r.onModuleInit();
      services.push(r);
      return new RedisSendGateStore(r, r.tag.slice(1, -1), systemClock);
    });
  },
);
