/**
 * The deterministic answer cache (docs/inference.md#deterministic-answer-cache) on both adapters and both stores,
 * against the fake upstream (its call count is the proof): a repeated temperature-0 (or seeded) request is
 * answered from the cache shield's result cache; temperature 0.7 never is; app B never reads app A's answer;
 * 10 concurrent identical requests make one upstream call; a cached answer is replayed to a stream as valid SSE;
 * an aborted or failed stream is not cached; a cache hit gives its token reservation back, or charges the cached
 * usage when INFERENCE_CHARGE_CACHED_TOKENS is set; the kill switch (mode off through the admin API) stops it at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningApp, startApp } from '../support/app.js';
import { sseData } from '../support/fake-openai.js';
import {
  inferenceCases,
  useInferenceHarness,
  withInferenceRules,
} from '../support/inference-harness.js';

const BUDGET = 5_000;
/** What the fake answers (max_tokens ≥ 8): its 8 words. */
const ANSWER = 'This is a fake answer from the upstream';

/** The shipped inference policy with its answer cache on, a token budget per user (x-user-id), no tiers. */
const WITH_CACHE = withInferenceRules(
  [
    { name: 'user-tokens', dimension: 'user', algorithm: 'tokens', capacity: BUDGET, window: '1d' },
    { name: 'user-concurrent', dimension: 'user', algorithm: 'concurrency', capacity: 100 },
  ],
  { answerCache: true },
);

describe.each(inferenceCases('dac'))('deterministic answer cache ($adapter, $store store)', (c) => {
  const h = useInferenceHarness(c, WITH_CACHE);
  const { apps } = h;
  const { adapter } = c;
  let charging: RunningApp;
  let n = 0;
  const unique = (): string => `${adapter}-${Date.now()}-${++n}`;

  beforeAll(async () => {
    charging = await startApp(
      {
        ...c.env(),
        HTTP_ADAPTER: adapter,
        INFERENCE_UPSTREAM_URL: h.fake.url,
        APPS_FILE: apps.file,
        INFERENCE_CHARGE_CACHED_TOKENS: 'true',
      },
      { config: WITH_CACHE },
    );
  });
  afterAll(async () => {
    await charging?.close();
  });

  type Opts = { appId?: string; user?: string; on?: RunningApp };
  const signed = (body: object, o: Opts = {}) => h.signed(body, o);
  const call = (body: object, o: Opts = {}): Promise<Response> => h.send(signed(body, o));
  const chat = (text: string, extra: object = {}) => ({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: text }],
    max_tokens: 16,
    temperature: 0,
    ...extra,
  });
  const content = async (res: Response): Promise<string> => {
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    return body.choices[0]!.message.content;
  };
  /** The data of every event of a stream, and the text its chunks add up to. */
  const streamed = async (res: Response): Promise<{ events: string[]; text: string }> => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: string[] = [];
    for await (const d of sseData(res)) events.push(d);
    let text = '';
    for (const e of events.slice(0, -1)) {
      const chunk = JSON.parse(e) as {
        object: string;
        choices: { delta: { content?: string } }[];
      };
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(events.at(-1)).toBe('[DONE]');
    return { events, text };
  };
  /** Tokens left in `user`'s budget (a probe that can never fit is refused and charges nothing). */
  const left = async (user: string, on: RunningApp): Promise<number> => {
    const res = await call(chat('probe', { max_tokens: 8192, temperature: 1 }), {
      user,
      on,
    });
    expect(res.status).toBe(429);
    await res.arrayBuffer();
    return Number(res.headers.get('x-ratelimit-remaining-tokens'));
  };

  it('should answer a second identical temperature-0 request from the cache, whatever its user field or key order', async () => {
    const body = chat(`cache me ${unique()}`);
    const before = h.fake.requests;
    const first = await call(body);
    expect(first.status).toBe(200);
    expect(first.headers.get('rampart-shield')).toBeNull();
    expect(await content(first)).toBe(ANSWER);
    const second = await call({ user: 'end-user-7', ...body, messages: body.messages });
    expect(second.status).toBe(200);
    expect(second.headers.get('rampart-shield')).toBe('cache-hit');
    expect(await content(second)).toBe(ANSWER);
    expect(h.fake.requests - before).toBe(1);
    // A field that changes the answer is another entry.
    await (await call({ ...body, max_tokens: 15 })).arrayBuffer();
    expect(h.fake.requests - before).toBe(2);
  });

  it('should cache a seeded request, and never one with temperature 0.7', async () => {
    const before = h.fake.requests;
    const warm = chat(`warm ${unique()}`, { temperature: 0.7 });
    for (let i = 0; i < 2; i++) {
      const res = await call(warm);
      expect(res.status).toBe(200);
      expect(res.headers.get('rampart-shield')).toBeNull();
      await res.arrayBuffer();
    }
    expect(h.fake.requests - before).toBe(2);
    const seeded = chat(`seeded ${unique()}`, { temperature: 0.7, seed: 42 });
    await (await call(seeded)).arrayBuffer();
    const again = await call(seeded);
    expect(again.headers.get('rampart-shield')).toBe('cache-hit');
    await again.arrayBuffer();
    expect(h.fake.requests - before).toBe(3);
  });

  it("should never answer app B from app A's cached answer, even with an identical body", async () => {
    const body = chat(`tenant ${unique()}`);
    const before = h.fake.requests;
    await (await call(body)).arrayBuffer();
    const fromB = await call(body, { appId: apps.debug.appId });
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('rampart-shield')).toBeNull();
    await fromB.arrayBuffer();
    expect(h.fake.requests - before).toBe(2);
    // App B's own answer is then cached for app B.
    const againB = await call(body, { appId: apps.debug.appId });
    expect(againB.headers.get('rampart-shield')).toBe('cache-hit');
    await againB.arrayBuffer();
    expect(h.fake.requests - before).toBe(2);
  });

  it('should make one upstream call for 10 concurrent identical requests (single flight)', async () => {
    const body = chat(`flight ${unique()}`);
    const before = h.fake.requests;
    h.fake.setLatency(200);
    try {
      const all = await Promise.all(Array.from({ length: 10 }, () => call(body)));
      expect(all.map((r) => r.status)).toEqual(Array(10).fill(200));
      const texts = await Promise.all(all.map(content));
      expect(new Set(texts)).toEqual(new Set([ANSWER]));
      expect(all.filter((r) => r.headers.get('rampart-shield') === null)).toHaveLength(1);
    } finally {
      h.fake.reset();
    }
    expect(h.fake.requests - before).toBe(1);
  });

  it('should keep a finished stream, and replay a cached answer as valid SSE (with usage when asked)', async () => {
    const body = chat(`stream ${unique()}`, { stream: true });
    const before = h.fake.requests;
    const live = await streamed(await call(body));
    expect(live.text).toBe(ANSWER);
    const res = await call({ ...body, stream_options: { include_usage: true } });
    expect(res.headers.get('rampart-shield')).toBe('cache-hit');
    const replay = await streamed(res);
    expect(replay.text).toBe(ANSWER);
    const usage = JSON.parse(replay.events.at(-2)!) as { choices: unknown[]; usage: object };
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 8 });
    expect(replay.events.some((e) => e.includes('"finish_reason":"stop"'))).toBe(true);
    // The same answer as JSON, and a JSON answer replayed as a stream.
    const json = await call({ ...body, stream: false });
    expect(json.headers.get('rampart-shield')).toBe('cache-hit');
    expect(await content(json)).toBe(ANSWER);
    const other = chat(`json first ${unique()}`);
    await (await call(other)).arrayBuffer();
    const asStream = await call({ ...other, stream: true });
    expect(asStream.headers.get('rampart-shield')).toBe('cache-hit');
    expect((await streamed(asStream)).text).toBe(ANSWER);
    expect(h.fake.requests - before).toBe(2);
  });

  it('should not cache a stream its client aborted, nor one that failed', async () => {
    const body = chat(`aborted ${unique()}`, { stream: true });
    const before = h.fake.requests;
    const aborted = h.fake.aborted;
    h.fake.pauseStreams();
    try {
      const s = signed(body);
      await h.abortAfter(s);
      await expect.poll(() => h.fake.aborted).toBeGreaterThan(aborted);
    } finally {
      h.fake.reset();
    }
    const again = await call(body);
    expect(again.headers.get('rampart-shield')).toBeNull();
    expect((await streamed(again)).text).toBe(ANSWER);
    expect(h.fake.requests - before).toBe(2);

    const failing = chat(`failing ${unique()}`, { stream: true });
    h.fake.setFailAfterFirstChunk(true);
    try {
      const res = await call(failing);
      for await (const d of sseData(res)) void d;
    } catch {
      // The connection may drop mid-stream: either way nothing finished.
    } finally {
      h.fake.reset();
    }
    const retry = await call(failing);
    expect(retry.headers.get('rampart-shield')).toBeNull();
    expect((await streamed(retry)).text).toBe(ANSWER);
    expect(h.fake.requests - before).toBe(4);
  });

  it('should give a cache hit its token reservation back, or charge the cached usage when set to', async () => {
    for (const [on, charged] of [
      [h.app, 0],
      [charging, 13],
    ] as const) {
      const user = `user-${unique()}`;
      const body = chat(`tokens ${unique()}`);
      await (await call(body, { user, on })).arrayBuffer();
      // The miss is settled to the fake's usage: 5 prompt + 8 completion tokens.
      await expect.poll(() => left(user, on)).toBe(BUDGET - 13);
      const hit = await call(body, { user, on });
      expect(hit.headers.get('rampart-shield')).toBe('cache-hit');
      await hit.arrayBuffer();
      await expect.poll(() => left(user, on)).toBe(BUDGET - 13 - charged);
    }
  });

  it('should stop answering from the cache at once when the kill switch turns it off, and again once it is on', async () => {
    const admin = h.admin;
    const path = '/admin/policies/inference/locks/cacheShield';
    const body = chat(`kill switch ${unique()}`);
    const before = h.fake.requests;
    await (await call(body)).arrayBuffer();
    try {
      expect((await admin.call('PATCH', path, { mode: 'off' })).status).toBe(200);
      const res = await call(body);
      expect(res.headers.get('rampart-shield')).toBeNull();
      expect(await content(res)).toBe(ANSWER);
      expect(h.fake.requests - before).toBe(2);
    } finally {
      expect((await admin.call('PATCH', path, { mode: 'enforce' })).status).toBe(200);
    }
    const back = await call(body);
    expect(back.headers.get('rampart-shield')).toBe('cache-hit');
    await back.arrayBuffer();
    expect(h.fake.requests - before).toBe(2);
  });
});
