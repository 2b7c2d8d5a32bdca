/**
 * The in-memory stores' caps are settings (docs/configuration.md, docs/rate-limit.md#memory-bounds): the running
 * app (no Redis, both adapters) builds each bounded map with the cap its CONFIG_FILE names, not a literal. Each
 * store is filled to its configured cap plus one: the session-key deny set and the outbound queue refuse, the
 * send gate's chat maps and the risk markers and chat sets drop their oldest entry (the memory store metrics).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { MemoryStoreFullError } from '../../src/common/bounded-map.js';
import { MemoryRiskStore } from '../../src/locks/rate-limit/store/risk/memory-risk.store.js';
import { observeParams } from '../../src/locks/rate-limit/core/risk-params.js';
import { defaultRiskSettings } from '../../src/locks/rate-limit/settings/risk.settings.js';
import {
  SESSION_KEY_STORE,
  type SessionKeyStore,
} from '../../src/locks/signature/session-keys/session-key-store.js';
import {
  SEND_GATE_STORE,
  type SendGateStore,
} from '../../src/telegram/outbound/gate/send-gate.store.js';
import {
  OUTBOUND_QUEUE_STORE,
  type OutboundQueueStore,
} from '../../src/telegram/outbound/queue/outbound-queue.store.js';
import type { NewJob } from '../../src/telegram/outbound/outbound.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';

const CAP = 100;
const SMALL = 10;

function smallCaps(c: RampartConfig): RampartConfig {
  const s = c.sections as Record<string, Record<string, unknown> | undefined>;
  return {
    ...c,
    sections: {
      ...c.sections,
      signature: { ...s.signature, memorySessionKeyDenials: CAP },
      telegram: {
        ...s.telegram,
        outbound: {
          ...(s.telegram?.outbound as object | undefined),
          workers: false,
          memoryMaxJobs: CAP,
          memoryChatEntries: CAP,
        },
      },
      rateLimit: {
        ...s.rateLimit,
        memory: {
          ...(s.rateLimit?.memory as object | undefined),
          riskMarkers: SMALL,
          riskChatSets: SMALL,
        },
      },
    },
  };
}

describe.each(ADAPTERS)('memory store caps from CONFIG_FILE (%s)', (adapter) => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter }, { search: 'empty', config: smallCaps });
  });
  afterAll(() => app?.close());

  const evictions = async (store: string): Promise<number> => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const m = new RegExp(`rampart_memory_store_evictions_total\\{store="${store}"\\} (\\d+)`).exec(
      text,
    );
    return Number(m?.[1] ?? 0);
  };

  it('should refuse the session key denial past signature.memorySessionKeyDenials with 503', async () => {
    const keys = app.app.get<SessionKeyStore>(SESSION_KEY_STORE);
    for (let i = 0; i < CAP; i++) await keys.deny(`key-${i}`, 60_000);
    const refused = await keys.deny('one-too-many', 60_000).then(
      () => undefined,
      (e: { getStatus(): number; message: string }) => e,
    );
    expect(refused?.getStatus()).toBe(503);
    expect(await keys.denied('key-0')).toBe(true); // no denial forgotten to make room
  });

  it('should refuse the job past telegram.outbound.memoryMaxJobs', async () => {
    const queue = app.app.get<OutboundQueueStore>(OUTBOUND_QUEUE_STORE);
    const now = Date.now();
    const job = (i: number): NewJob => ({
      id: `job-${i}`,
      chatId: String(1000 + i),
      method: 'sendMessage',
      payload: { text: 'hi' },
      scope: 'caps-test',
      priority: 'normal',
      deadline: now + 60_000,
      notBefore: now,
    });
    await queue.enqueue(
      Array.from({ length: CAP }, (_, i) => job(i)),
      now,
    );
    const refused = queue.enqueue([job(CAP)], now);
    await expect(refused).rejects.toBeInstanceOf(MemoryStoreFullError);
    await expect(refused).rejects.toMatchObject({ maxEntries: CAP });
  });

  it('should drop the oldest chat of the send gate past telegram.outbound.memoryChatEntries', async () => {
    const gate = app.app.get<SendGateStore>(SEND_GATE_STORE);
    const before = await evictions('telegram_unreachable_chats');
    for (let i = 0; i <= CAP; i++) await gate.markUnreachable('caps-bot', String(5000 + i), 60_000);
    expect(await evictions('telegram_unreachable_chats')).toBe(before + 1);
  });

  it('should drop the oldest risk marker and chat set past rateLimit.memory.riskMarkers / riskChatSets', async () => {
    const risk = app.app.get(MemoryRiskStore);
    const p = observeParams(defaultRiskSettings());
    const before = [await evictions('risk_markers'), await evictions('risk_chats')];
    for (let i = 0; i <= SMALL; i++)
      await risk.observe(
        [
          { kind: 'payload', key: `caps:risk:${i}`, marker: `caps:marker:${i}` },
          { kind: 'chat', key: `caps:risk:${i}`, set: `caps:chats:${i}`, member: 'c1' },
        ],
        p,
      );
    expect([await evictions('risk_markers'), await evictions('risk_chats')]).toEqual([
      before[0]! + 1,
      before[1]! + 1,
    ]);
  });
});
