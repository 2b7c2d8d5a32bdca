import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeBotBackend, startFakeBotBackend } from '../support/fake-bot-backend.js';
import { deliver, telegramConfigFile, textUpdate } from '../support/telegram.js';

/** Delivers like Telegram: again and again until a 2xx, a pause between tries; the statuses seen. */
async function deliverUntilAccepted(
  base: string,
  update: unknown,
  statuses: number[],
): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const res = await deliver(base, update);
    await res.arrayBuffer();
    statuses.push(res.status);
    if (res.ok) return;
    // Telegram paces its redeliveries (seconds apart); each one is decided (and charged) again.
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('never accepted');
}

/**
 * The bot backend's breaker probes 1 s after it opened, not the derived policy's 10 s: the down test
 * waits for that probe once the backend is back (open, half-open and closed all happen as shipped).
 */
function shortBreakerReset(c: RampartConfig): RampartConfig {
  const p = c.policies['telegram-demo']!;
  const cb = { ...p.locks.circuitBreaker!, resetTimeoutMs: 1_000 };
  return {
    ...c,
    policies: {
      ...c.policies,
      'telegram-demo': { ...p, locks: { ...p.locks, circuitBreaker: cb } },
    },
  };
}

describe.each(ADAPTERS)('Telegram ingress, forward mode (%s)', (adapter) => {
  let app: RunningApp;
  let be: FakeBotBackend;

  beforeAll(async () => {
    be = await startFakeBotBackend();
    app = await startApp(
      {
        HTTP_ADAPTER: adapter,
        CONFIG_FILE: telegramConfigFile([{ id: 'demo', mode: 'forward', backendUrl: be.url }]),
      },
      { search: 'empty', config: shortBreakerReset },
    );
  });
  afterAll(async () => {
    await app?.close();
    await be?.close();
  });

  it('should forward a verified update with headers naming the bot and the decision', async () => {
    const u = textUpdate('/start', 9001);
    const res = await deliver(app.url, u);
    expect(res.status).toBe(200);
    expect(be.updates).toContain(u.update_id);
    const h = be.headers[be.updates.indexOf(u.update_id as number)]!;
    expect(h['rampart-telegram-bot']).toBe('demo');
    expect(h['rampart-decision']).toBe('allowed');
    expect(h['x-telegram-bot-api-secret-token']).toBeUndefined();
  });

  it('should drop a redelivered update_id with a 200, without forwarding it again', async () => {
    const u = textUpdate('/start', 9010);
    expect((await deliver(app.url, u)).status).toBe(200);
    expect((await deliver(app.url, u)).status).toBe(200);
    expect(be.updates.filter((id) => id === u.update_id)).toHaveLength(1);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(
      /rampart_telegram_updates_total\{bot="demo",kind="message",command="\/start",outcome="deduplicated"\} 1/,
    );
  });

  it('should relay a Bot API method call in the backend answer to Telegram unchanged', async () => {
    const reply = {
      method: 'sendMessage',
      chat_id: 9002,
      text: 'pong',
      reply_markup: { remove_keyboard: true },
    };
    be.reply = reply;
    try {
      const res = await deliver(app.url, textUpdate('ping', 9002));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(reply);
    } finally {
      be.reply = undefined;
    }
  });

  it('should lose no allowed update while the backend is down for a while (non-2xx, Telegram redelivers)', async () => {
    const sent = [textUpdate('a', 9003), textUpdate('b', 9004), textUpdate('c', 9005)];
    be.down = true;
    const first = await deliver(app.url, sent[0]);
    expect(first.status).toBe(502);
    expect((await first.json()) as { error: string }).toMatchObject({
      error: 'bot_backend_unavailable',
    });
    // Telegram keeps redelivering: 502 from the backend, then 503 once the bot's breaker opened.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await deliver(app.url, sent[i % 3]);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).toContain(503);
    expect(statuses.filter((s) => s !== 502 && s !== 503)).toEqual([]);
    be.down = false;
    // Back: every update gets through on a later redelivery (the breaker probes, then closes).
    for (const u of sent) await deliverUntilAccepted(app.url, u, statuses);
    // Each reached the backend exactly once: the claim was given back on every non-2xx, and kept after.
    for (const u of sent) expect(be.updates.filter((id) => id === u.update_id)).toHaveLength(1);
    for (const u of sent) expect((await deliver(app.url, u)).status).toBe(200);
    for (const u of sent) expect(be.updates.filter((id) => id === u.update_id)).toHaveLength(1);
    expect(statuses.filter((s) => ![200, 502, 503].includes(s))).toEqual([]);
  }, 60_000);
});
