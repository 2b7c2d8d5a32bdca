import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TelegramPolling } from '../../src/telegram/polling/telegram-polling.service.js';
import type { PollStateStore } from '../../src/telegram/polling/poll-state.store.js';
import { RunningApp, startApp } from '../support/app.js';
import { FakeBotBackend, startFakeBotBackend } from '../support/fake-bot-backend.js';
import { FakeBotUpdates, startFakeBotUpdates } from '../support/fake-bot-updates.js';
import { sample } from '../support/metrics-sample.js';
import { containing, redisTexts } from '../support/redis-scan.js';
import { canStartRedis, uniqueEnv } from '../support/redis-env.js';
import { RedisProcess, startRedis } from '../support/redis-server.js';
import { BOT_TOKEN, telegramConfigFile, textUpdate } from '../support/telegram.js';

/** How often each update id reached the bot backend. */
function counts(be: FakeBotBackend): Map<number, number> {
  const m = new Map<number, number>();
  for (const id of be.updates) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
}

const metricsOf = async (a: RunningApp): Promise<string> =>
  (await fetch(`${a.url}/metrics`)).text();

const polling = (a: RunningApp): boolean => a.app.get(TelegramPolling).polling('poll');

/** `n` updates from `n` users (no per-user limit in the way), pushed to the fake Bot API. */
function pushUpdates(api: FakeBotUpdates, n: number, user: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = textUpdate(`hello ${i}`, user + i) as { update_id: number };
    api.push(u);
    ids.push(u.update_id);
  }
  return ids;
}

describe.skipIf(!canStartRedis())('Telegram long polling, two instances on one Redis', () => {
  let server: RedisProcess;
  let api: FakeBotUpdates;
  let be: FakeBotBackend;
  let a: RunningApp;
  let b: RunningApp;
  const env = uniqueEnv('tgp');

  beforeAll(async () => {
    server = await startRedis();
    api = await startFakeBotUpdates([BOT_TOKEN]);
    be = await startFakeBotBackend();
    const config = {
      REDIS_URL: server.url,
      RAMPART_ENV: env,
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      CONFIG_FILE: telegramConfigFile(
        [{ id: 'poll', mode: 'forward', backendUrl: be.url, ingress: 'polling' }],
        { apiRoot: api.url, telegram: { pollTimeoutS: 1, pollLeaseMs: 1_500 } },
      ),
    };
    a = await startApp({ ...config, HTTP_ADAPTER: 'express' }, { search: 'empty' });
    b = await startApp({ ...config, HTTP_ADAPTER: 'fastify' }, { search: 'empty' });
  });
  afterAll(async () => {
    // One of them was closed by a test already.
    await a?.close().catch(() => undefined);
    await b?.close().catch(() => undefined);
    await be?.close();
    await api?.close();
    await server?.stop();
  });

  it('should have one instance poll the bot and hand each update to the pipeline once', async () => {
    await vi.waitFor(() => expect(polling(a) || polling(b)).toBe(true), { timeout: 10_000 });
    const ids = pushUpdates(api, 30, 710_000);
    await vi.waitFor(() => expect(ids.every((id) => be.updates.includes(id))).toBe(true), {
      timeout: 15_000,
    });
    expect([polling(a), polling(b)].filter(Boolean)).toHaveLength(1);
    for (const id of ids) expect(counts(be).get(id)).toBe(1);
    // Each forwarded update carried the pipeline's decision, as a webhook one does.
    expect(be.headers.every((h) => String(h['rampart-decision']).startsWith('allowed'))).toBe(true);
    // Telegram never saw two pollers at once, and every update was confirmed by a later offset.
    expect(api.conflicts).toBe(0);
    await vi.waitFor(() => expect(api.pending()).toBe(0), { timeout: 5_000 });
  });

  it('should have the other instance take over a poller that hangs after handling a batch (as if it died), repeating nothing', async () => {
    const [holder, other] = polling(a) ? [a, b] : [b, a];
    // The holder stops talking to Redis (no renewal, no commit) once it has handled a batch: its lease
    // ends by itself and its offset never moved, as when a process dies between handling and committing.
    const store = (holder.app.get(TelegramPolling) as unknown as { store: PollStateStore }).store;
    const { lease, commit } = store;
    let wake!: () => void;
    const dead = new Promise<void>((r) => (wake = r));
    store.lease = () => dead.then(() => ({ held: false as const, retryMs: 1_000 }));
    store.commit = () => dead.then(() => undefined);
    try {
      const ids = pushUpdates(api, 10, 715_000);
      await vi.waitFor(() => expect(polling(other)).toBe(true), { timeout: 10_000 });
      await vi.waitFor(() => expect(api.pending()).toBe(0), { timeout: 15_000 });
      // Every update reached the backend once, although the new poller fetched the batch again.
      for (const id of ids) expect(counts(be).get(id)).toBe(1);
      expect(ids.every((id) => api.served.filter((s) => s === id).length >= 2)).toBe(true);
      expect(api.conflicts).toBe(0);
    } finally {
      store.lease = lease;
      store.commit = commit;
      wake();
    }
  });

  it('should have the other instance take over when the poller closes, losing and repeating nothing', async () => {
    const [holder, other] = polling(a) ? [a, b] : [b, a];
    const before = pushUpdates(api, 10, 720_000);
    // Closed while its batch may be in flight: what it handled but did not commit is a duplicate.
    await vi.waitFor(() => expect(be.updates).toContain(before[0]), { timeout: 10_000 });
    await holder.close();
    const after = pushUpdates(api, 10, 730_000);
    await vi.waitFor(() => expect(polling(other)).toBe(true), { timeout: 5_000 });
    await vi.waitFor(
      () => expect([...before, ...after].every((id) => be.updates.includes(id))).toBe(true),
      { timeout: 15_000 },
    );
    for (const id of [...before, ...after]) expect(counts(be).get(id)).toBe(1);
    expect(api.conflicts).toBe(0);
  });

  it('should keep no bot token in any Redis key or value', async () => {
    const client = new Redis(server.url);
    try {
      const texts = await redisTexts(client);
      expect(texts.some((t) => t.includes(`:poll:poll:`))).toBe(true);
      expect(containing(texts, [BOT_TOKEN, BOT_TOKEN.split(':')[1]!])).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});

describe('Telegram long polling, one instance on the memory store', () => {
  let api: FakeBotUpdates;
  let be: FakeBotBackend;
  let app: RunningApp;

  beforeAll(async () => {
    api = await startFakeBotUpdates([BOT_TOKEN]);
    be = await startFakeBotBackend();
    app = await startApp(
      {
        HTTP_ADAPTER: 'express',
        CONFIG_FILE: telegramConfigFile(
          [{ id: 'poll', mode: 'forward', backendUrl: be.url, ingress: 'polling' }],
          { apiRoot: api.url, telegram: { pollTimeoutS: 1, pollLeaseMs: 1_500 } },
        ),
      },
      {
        search: 'empty',
        // The bot's breaker stays closed: the poller's own retries are under test here.
        config: (c) => {
          const cb = c.policies['telegram-poll']!.locks.circuitBreaker as Record<string, unknown>;
          cb.volumeThreshold = 1_000;
          return c;
        },
      },
    );
  });
  afterAll(async () => {
    await app?.close();
    await be?.close();
    await api?.close();
  });

  it('should poll alone and hand each update to the pipeline once', async () => {
    await vi.waitFor(() => expect(polling(app)).toBe(true), { timeout: 10_000 });
    const ids = pushUpdates(api, 5, 740_000);
    await vi.waitFor(() => expect(ids.every((id) => be.updates.includes(id))).toBe(true), {
      timeout: 10_000,
    });
    for (const id of ids) expect(counts(be).get(id)).toBe(1);
    const m = await metricsOf(app);
    expect(sample(m, 'rampart_telegram_poll_handled_total', { bot: 'poll' })).toBe(5);
    expect(
      sample(m, 'rampart_telegram_poll_updates_total', { bot: 'poll' }),
    ).toBeGreaterThanOrEqual(5);
    expect(sample(m, 'rampart_telegram_poller_active', { bot: 'poll' })).toBe(1);
  });

  it('should not confirm an update the pipeline could not take (backend down), and deliver it once it can', async () => {
    const metric = async (name: string, labels: Record<string, string>) =>
      sample(await metricsOf(app), name, labels) ?? 0;
    const failures = () =>
      metric('rampart_telegram_poll_failures_total', { bot: 'poll', step: 'dispatch' });
    const handled0 = await metric('rampart_telegram_poll_handled_total', { bot: 'poll' });
    be.down = true;
    const ids = pushUpdates(api, 3, 750_000);
    // Fetched again and again while the backend refuses: never confirmed by an offset, never lost.
    // (A fetch is counted when served, its refusal when the dispatch ends: wait for both.)
    await vi.waitFor(
      async () => {
        expect(api.served.filter((id) => id === ids[0]).length).toBeGreaterThanOrEqual(3);
        expect(await failures()).toBeGreaterThanOrEqual(3);
      },
      { timeout: 15_000 },
    );
    expect(api.pending()).toBeGreaterThanOrEqual(3);
    be.down = false;
    await vi.waitFor(() => expect(ids.every((id) => be.updates.includes(id))).toBe(true), {
      timeout: 15_000,
    });
    for (const id of ids) expect(counts(be).get(id)).toBe(1);
    await vi.waitFor(() => expect(api.pending()).toBe(0), { timeout: 5_000 });
    // Each refusal counted as a dispatch failure; each update handled once.
    expect(await failures()).toBeGreaterThanOrEqual(3);
    const handled = await metric('rampart_telegram_poll_handled_total', { bot: 'poll' });
    expect(handled - handled0).toBe(3);
  }, 40_000);
});
