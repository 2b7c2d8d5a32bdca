import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READY_DETAIL } from '../support/admin-client.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FAKE_MODEL, FakeOpenAI, sseData, startFakeOpenAI } from '../support/fake-openai.js';
import { TestLocksModule } from '../support/test-locks.js';

const on = { mode: 'enforce' as const };
const API_KEY = 'sk-test-0123456789abcdef';

/** The inference route behind the chain's test locks (see inference.e2e.spec.ts). */
function withTestLocks(c: RampartConfig): RampartConfig {
  return {
    ...c,
    policies: {
      ...c.policies,
      test: { locks: {} },
      inference: { locks: { signature: on, rateLimit: on, cacheShield: on, circuitBreaker: on } },
    },
  };
}

function post(app: RunningApp, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${app.url}/v1/inference`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    body: JSON.stringify(body),
    signal: init.signal,
  });
}

const chat = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hello upstream' }],
  ...extra,
});

async function until(cond: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function problem(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await res.json()) as Record<string, unknown>;
}

describe.each(ADAPTERS)('POST /v1/inference, OpenAI-compatible upstream (%s)', (adapter) => {
  let fake: FakeOpenAI;
  let app: RunningApp;
  let fast: RunningApp;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    const env = {
      HTTP_ADAPTER: adapter,
      ADMIN_TOKEN,
      INFERENCE_UPSTREAM_URL: fake.url,
      INFERENCE_UPSTREAM_API_KEY: API_KEY,
    };
    app = await startApp(env, { search: 'empty', locks: [TestLocksModule], config: withTestLocks });
    fast = await startApp(
      { ...env, INFERENCE_UPSTREAM_TIMEOUT_MS: '300' },
      { search: 'empty', locks: [TestLocksModule], config: withTestLocks },
    );
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await app?.close();
    await fast?.close();
    await fake?.close();
  });

  it('should proxy a JSON completion with only the validated fields and our own credentials', async () => {
    const res = await post(app, chat({ max_tokens: 3, temperature: 0.2, evil: 'x' }), {
      headers: {
        authorization: 'Bearer client-secret',
        'x-forwarded-for': '6.6.6.6',
        'x-custom': 'leak',
        'x-request-id': 'req-42',
      },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      model: string;
      object: string;
      choices: { message: { content: string } }[];
    };
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe(FAKE_MODEL);
    expect(body.choices[0]!.message.content).toBe('This is a');
    const seen = fake.lastRequest!;
    expect(seen.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen.headers['x-request-id']).toBe('req-42');
    expect(seen.headers['x-forwarded-for']).toBeUndefined();
    expect(seen.headers['x-custom']).toBeUndefined();
    expect(seen.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello upstream' }],
      max_tokens: 3,
      stream: false,
      temperature: 0.2,
    });
  });

  it('should relay a stream chunk by chunk: the first chunk arrives while the upstream is still streaming', async () => {
    fake.pauseStreams();
    const res = await post(app, chat({ stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseData(res);
    const roleChunk = JSON.parse((await events.next()).value as string) as {
      choices: { delta: { role?: string } }[];
    };
    expect(roleChunk.choices[0]!.delta.role).toBe('assistant');
    const first = JSON.parse((await events.next()).value as string) as {
      choices: { delta: { content?: string } }[];
    };
    expect(first.choices[0]!.delta.content).toBe('This');
    expect(fake.inFlight).toBe(1); // the upstream is held after its first chunk: we got it relayed, not buffered
    fake.resumeStreams();
    const rest: string[] = [];
    for await (const data of events) rest.push(data);
    expect(rest.at(-1)).toBe('[DONE]');
    const text = rest
      .slice(0, -1)
      .map(
        (d) =>
          (JSON.parse(d) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta
            .content ?? '',
      )
      .join('');
    expect(`This${text}`).toBe('This is a fake answer from the upstream');
  });

  it('should stop the upstream stream when the client goes away', async () => {
    fake.pauseStreams();
    const ctl = new AbortController();
    const res = await post(app, chat({ stream: true }), { signal: ctl.signal });
    const events = sseData(res);
    await events.next();
    await events.next();
    const before = fake.aborted;
    ctl.abort();
    await until(() => fake.aborted > before, 'the upstream to see the call aborted');
  });

  it.each([
    [500, 502, 'upstream_error'],
    [503, 502, 'upstream_error'],
    [400, 400, 'upstream_rejected'],
    [404, 404, 'upstream_rejected'],
    [429, 429, 'upstream_rejected'],
  ])('should map an upstream %i to %i %s', async (upstream, status, code) => {
    fake.setStatus(upstream);
    for (const stream of [false, true]) {
      const res = await post(app, chat({ stream }));
      expect(res.status).toBe(status);
      const p = await problem(res);
      expect(p.error).toBe(code);
      expect(p.upstream_status).toBe(upstream);
      if (status < 500) expect(p.detail).toBe(`fake upstream answered ${upstream}`);
      if (upstream === 429) expect(res.headers.get('retry-after')).toBe('1');
    }
  });

  it('should not pass on what the upstream says about our credentials', async () => {
    fake.setStatus(401);
    const res = await post(app, chat());
    expect(res.status).toBe(401);
    const text = JSON.stringify(await problem(res));
    expect(text).toContain('upstream_rejected');
    expect(text).not.toContain('fake upstream answered');
    expect(text).not.toContain(API_KEY);
  });

  it('should answer 502 when the upstream sends broken JSON', async () => {
    fake.setBadJson(true);
    const res = await post(app, chat());
    expect(res.status).toBe(502);
    expect((await problem(res)).error).toBe('upstream_error');
  });

  it('should answer 504 and abort the upstream call when it hangs past the timeout', async () => {
    fake.setHang(true);
    for (const stream of [false, true]) {
      const before = fake.aborted;
      const res = await post(fast, chat({ stream }));
      expect(res.status).toBe(504);
      expect((await problem(res)).error).toBe('upstream_timeout');
      await until(() => fake.aborted > before, 'the upstream to see the call aborted');
    }
    await until(() => fake.inFlight === 0, 'no call left at the upstream');
  });

  it('should end a stream that stalls mid-way with an error event and abort the upstream', async () => {
    fake.pauseStreams();
    const before = fake.aborted;
    const res = await post(fast, chat({ stream: true }));
    expect(res.status).toBe(200);
    const events: string[] = [];
    for await (const data of sseData(res)) events.push(data);
    expect(events).toHaveLength(3);
    expect(JSON.parse(events[2]!)).toEqual({
      error: {
        message: 'the upstream did not answer within 300 ms',
        type: 'server_error',
        code: 'upstream_timeout',
        param: null,
      },
    });
    await until(() => fake.aborted > before, 'the upstream to see the call aborted');
  });

  it('should reject bad input with 400 before calling the upstream', async () => {
    const before = fake.requests;
    const res = await post(app, {
      model: 'm',
      messages: [{ role: 'system', content: 'no user here' }],
    });
    expect(res.status).toBe(400);
    expect((await problem(res)).error).toBe('validation_failed');
    expect(fake.requests).toBe(before);
  });

  it('should keep a lock rejection away from the upstream', async () => {
    const before = fake.requests;
    const res = await fetch(`${app.url}/v1/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-reject': 'rateLimit' },
      body: JSON.stringify(chat()),
    });
    expect(res.status).toBe(429);
    expect(fake.requests).toBe(before);
  });

  it('should count upstream outcomes apart in /metrics', async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    for (const outcome of ['ok', 'rejected', 'failed']) {
      expect(text).toMatch(
        new RegExp(
          `rampart_inference_duration_seconds_count\\{backend="upstream",mode="json",outcome="${outcome}"\\} [1-9]`,
        ),
      );
    }
    const fastText = await (await fetch(`${fast.url}/metrics`)).text();
    expect(fastText).toMatch(
      /rampart_inference_duration_seconds_count\{backend="upstream",mode="stream",outcome="timeout"\} [1-9]/,
    );
  });

  it('should list the route with its request schema in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, { post?: unknown }>;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    expect(doc.paths['/v1/inference']?.post).toBeDefined();
    expect(doc.components.schemas.ChatCompletionRequestDto?.required).toEqual(
      expect.arrayContaining(['model', 'messages']),
    );
  });

  it('should report the upstream in /health/ready, degraded (not down) when it fails', async () => {
    let body = (await (await fetch(`${app.url}/health/ready`, READY_DETAIL)).json()) as {
      status: string;
      details: Record<string, Record<string, unknown>>;
    };
    expect(body.details.inference).toMatchObject({
      status: 'up',
      backend: 'upstream',
      upstream: new URL(fake.url).origin,
    });
    fake.setStatus(500);
    const res = await fetch(`${app.url}/health/ready`, READY_DETAIL);
    expect(res.status).toBe(200);
    body = (await res.json()) as typeof body;
    expect(body.details.inference).toMatchObject({
      status: 'degraded',
      message: 'upstream GET /models answered 500',
    });
  });
});

describe.each(ADAPTERS)('POST /v1/inference, shutdown during a stream (%s)', (adapter) => {
  it('should finish the stream in flight, then close without waiting out the keep-alive timeout', async () => {
    const fake = await startFakeOpenAI();
    const app = await startApp(
      { HTTP_ADAPTER: adapter, ADMIN_TOKEN, INFERENCE_UPSTREAM_URL: fake.url },
      { search: 'empty', locks: [TestLocksModule], config: withTestLocks },
    );
    try {
      fake.pauseStreams();
      const events = sseData(await post(app, chat({ stream: true })));
      await events.next();
      await events.next();
      const server = app.app.getHttpServer() as { listening: boolean };
      const closing = app.close();
      await until(() => !server.listening, 'the server to stop listening');
      fake.resumeStreams();
      const rest: string[] = [];
      for await (const data of events) rest.push(data);
      expect(rest.at(-1)).toBe('[DONE]');
      // fastify keeps an idle connection 72 s: longer than this test's timeout, had we left the socket open
      await closing;
    } finally {
      await fake.close();
    }
  });
});

describe.each(ADAPTERS)('POST /v1/inference, upstream unreachable (%s)', (adapter) => {
  let app: RunningApp;

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    app = await startApp(
      { HTTP_ADAPTER: adapter, ADMIN_TOKEN, INFERENCE_UPSTREAM_URL: `http://127.0.0.1:${port}/v1` },
      { search: 'empty', locks: [TestLocksModule], config: withTestLocks },
    );
  });
  afterAll(() => app?.close());

  it('should answer 502 upstream_error without naming the upstream address', async () => {
    const res = await post(app, chat());
    expect(res.status).toBe(502);
    const p = await problem(res);
    expect(p.error).toBe('upstream_error');
    expect(p.detail).toContain('ECONNREFUSED');
    expect(JSON.stringify(p)).not.toContain('127.0.0.1');
  });
});
