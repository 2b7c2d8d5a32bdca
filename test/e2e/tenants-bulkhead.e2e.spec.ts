/**
 * Fair share of a backend's bulkhead between apps (docs/circuit-breaker.md#fair-share), on both adapters: an
 * app that holds every slot of the inference bulkhead with streams it does not read gets no freed slot while
 * another app waits for one; the waiting app does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampartConfig } from '../../src/config/config.types.js';
import { signRequest } from '../../src/sdk/sign-request.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { testApps } from '../support/signature-routes.js';

const CAPACITY = 6;

function withSmallBulkhead(c: RampartConfig): RampartConfig {
  const inference = c.policies.inference!;
  return {
    ...c,
    policies: {
      ...c.policies,
      inference: {
        ...inference,
        locks: {
          ...inference.locks,
          rateLimit: { mode: 'off' },
          cacheShield: { mode: 'off' },
          // The instant refusal of a full bulkhead of CAPACITY is what this spec watches: no wait, no adaptive limit
          // below it and no slot taken back (inference ships all three).
          circuitBreaker: {
            ...inference.locks.circuitBreaker,
            capacity: CAPACITY,
            maxWaitMs: 0,
            adaptive: false,
            reclaimAfterMs: 0,
          },
        },
      },
    },
  };
}

describe.each(ADAPTERS)('inference bulkhead shared fairly between apps (%s)', (adapter) => {
  const apps = testApps();
  const secrets: Record<string, string> = {
    [apps.main.appId]: apps.main.secrets[0]!,
    [apps.debug.appId]: apps.debug.secret,
  };
  let fake: FakeOpenAI;
  let app: RunningApp;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startApp(
      { HTTP_ADAPTER: adapter, INFERENCE_UPSTREAM_URL: fake.url, APPS_FILE: apps.file },
      { search: 'empty', config: withSmallBulkhead },
    );
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  /** A signed streamed completion by `appId`: its status, and a way to hang up (the body is never read). */
  const stream = async (appId: string) => {
    const url = `${app.url}/v1/chat/completions`;
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hold the line' }],
    });
    const ac = new AbortController();
    const res = await fetch(url, {
      method: 'POST',
      signal: ac.signal,
      headers: {
        'content-type': 'application/json',
        ...signRequest({ appId, secret: secrets[appId]!, method: 'POST', url, body }),
      },
      body,
    });
    if (res.status !== 200) await res.arrayBuffer();
    // The answer is kept (an unread body that is garbage collected would hang up by itself).
    return { status: res.status, res, hangUp: () => ac.abort() };
  };

  const slotsTaken = async () => {
    const m = await (await fetch(`${app.url}/metrics`)).text();
    return Number(/rampart_breaker_in_flight\{backend="inference"\} (\d+)/.exec(m)?.[1]);
  };

  it('should give a freed slot to the app that waits, not to the app that holds them all', async () => {
    fake.pauseStreams();
    const held = [];
    // Alone, the hog may take every idle slot.
    for (let i = 0; i < CAPACITY; i++) held.push(await stream(apps.main.appId));
    expect(held.map((h) => h.status)).toEqual(Array(CAPACITY).fill(200));
    // Full: the other app is refused, and now waits for a slot.
    expect((await stream(apps.debug.appId)).status).toBe(503);
    held.pop()!.hangUp();
    // The slot is free once the aborted upstream call has settled.
    await expect.poll(slotsTaken).toBe(CAPACITY - 1);
    // The hog is above its share while the other app waits: the freed slot is not its.
    expect((await stream(apps.main.appId)).status).toBe(503);
    const fair = await stream(apps.debug.appId);
    expect(fair.status).toBe(200);
    fair.hangUp();
    for (const h of held) h.hangUp();
    fake.resumeStreams();
  });
});
