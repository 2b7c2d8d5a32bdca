import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READY_DETAIL } from '../support/admin-client.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { LOCAL_MODEL_NAME } from '../../src/inference/local/local-model.backend.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { sseData } from '../support/fake-openai.js';
import { TestLocksModule, calls } from '../support/test-locks.js';

const on = { mode: 'enforce' as const };

/**
 * The inference route behind the chain's small test locks (every one of them
 * on for the `inference` policy), so these tests see the API itself whatever
 * the real locks' defaults are, and still prove the route is protected.
 */
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

const ORIGIN = 'https://app.example.com';
const HAPPY = 'I love this wonderful city, the people are great and the food is amazing!';
const ANGRY = 'This is terrible. I hate the awful service and the horrible food.';

function post(
  app: RunningApp,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${app.url}/v1/inference`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function chat(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content },
    ],
    ...extra,
  };
}

interface Completion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: { index: number; message: { role: string; content: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

describe.each(ADAPTERS)('POST /v1/inference, local demo model (%s)', (adapter) => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(
      { HTTP_ADAPTER: adapter, ADMIN_TOKEN, CORS_ORIGINS: ORIGIN },
      { search: 'empty', locks: [TestLocksModule], config: withTestLocks },
    );
  });
  afterAll(() => app?.close());

  it('should answer in the OpenAI chat.completion shape with consistent usage', async () => {
    const res = await post(
      app,
      chat('Book a table for 4 people on 12 March 2025, budget $200. Mail me at ann@example.com'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Completion;
    expect(body.id).toMatch(/^chatcmpl-[\w-]{24}$/);
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe(LOCAL_MODEL_NAME);
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(120);
    expect(body.choices).toHaveLength(1);
    expect(body.choices[0]!.index).toBe(0);
    expect(body.choices[0]!.message.role).toBe('assistant');
    expect(body.choices[0]!.finish_reason).toBe('stop');
    const content = body.choices[0]!.message.content;
    expect(content).toContain('"12 March 2025" (date)');
    expect(content).toContain('"$200" (amount of money)');
    expect(content).toContain('"ann@example.com" (e-mail address)');
    expect(body.usage.prompt_tokens).toBeGreaterThan(15);
    expect(body.usage.completion_tokens).toBeGreaterThan(20);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('should read the sentiment of the last user message', async () => {
    const happy = ((await (await post(app, chat(HAPPY))).json()) as Completion).choices[0]!.message
      .content;
    const angry = ((await (await post(app, chat(ANGRY))).json()) as Completion).choices[0]!.message
      .content;
    expect(happy).toMatch(/tone is positive \(sentiment \+0\.\d+/);
    expect(angry).toMatch(/tone is negative \(sentiment -0\.\d+/);
    const lastWins = await post(app, {
      model: 'm',
      messages: [
        { role: 'user', content: HAPPY },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: ANGRY },
      ],
    });
    expect(((await lastWins.json()) as Completion).choices[0]!.message.content).toContain(
      'tone is negative',
    );
  });

  it('should stop at max_tokens with finish_reason "length"', async () => {
    const body = (await (await post(app, chat(HAPPY, { max_tokens: 5 }))).json()) as Completion;
    expect(body.usage.completion_tokens).toBe(5);
    expect(body.choices[0]!.finish_reason).toBe('length');
    expect(body.choices[0]!.message.content).toBe('I read your message:');
  });

  it('should stream chat.completion.chunk events until [DONE], matching the JSON answer', async () => {
    const json = (await (await post(app, chat(HAPPY))).json()) as Completion;
    const res = await post(
      app,
      chat(HAPPY, { stream: true, stream_options: { include_usage: true } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: string[] = [];
    for await (const data of sseData(res)) events.push(data);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e) as {
          id: string;
          object: string;
          model: string;
          choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
          usage?: Completion['usage'];
        },
    );
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(
      chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === LOCAL_MODEL_NAME),
    ).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual(json.usage);
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]!.finish_reason).toBe('stop');
    const text = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
    expect(text).toBe(json.choices[0]!.message.content);
    expect(chunks.length).toBe(json.usage.completion_tokens + 3);
  });

  it('should keep the headers set before the stream took the reply over (request id, security, CORS)', async () => {
    const res = await post(app, chat(HAPPY, { stream: true }), {
      origin: ORIGIN,
      'x-request-id': 'sse-req-1',
    });
    for await (const _ of sseData(res)) void _;
    expect(res.headers.get('x-request-id')).toBe('sse-req-1');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('cache-control')).toContain('no-cache');
  });

  it('should count calls by backend, mode and outcome in /metrics', async () => {
    await (await post(app, chat(HAPPY))).text();
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toMatch(
      /rampart_inference_duration_seconds_count\{backend="local",mode="json",outcome="ok"\} [1-9]/,
    );
    expect(text).toMatch(
      /rampart_inference_duration_seconds_count\{backend="local",mode="stream",outcome="ok"\} [1-9]/,
    );
  });

  it('should run the whole lock chain before answering, streamed or not', async () => {
    const id = `inf-${adapter}-${Date.now()}`;
    const res = await post(app, chat(HAPPY, { stream: true }), { 'x-test-id': id });
    for await (const _ of sseData(res)) void _;
    expect(calls.get(id)).toEqual([
      'signature:enforce',
      'rateLimit:enforce',
      'cacheShield:enforce',
      'circuitBreaker:enforce',
    ]);
    const rejected = await post(app, chat(HAPPY), { 'x-test-reject': 'signature' });
    expect(rejected.status).toBe(401);
  });

  it.each([
    ['no model', { messages: [{ role: 'user', content: 'hi' }] }, /model must be/],
    [
      'an empty model',
      { model: '', messages: [{ role: 'user', content: 'hi' }] },
      /model must be longer/,
    ],
    ['no messages', { model: 'm', messages: [] }, /messages must contain at least 1 elements/],
    [
      'no user message',
      { model: 'm', messages: [{ role: 'system', content: 'x' }] },
      /at least one message with role "user"/,
    ],
    [
      'an unknown role',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'robot', content: 'x' },
        ],
      },
      /messages\.1\.role must be one of/,
    ],
    [
      'content that is not a string',
      { model: 'm', messages: [{ role: 'user', content: 42 }] },
      /messages\.0\.content must be a string/,
    ],
    [
      'content over 32k characters',
      { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(32_769) }] },
      /messages\.0\.content must be shorter/,
    ],
    [
      '65 messages',
      { model: 'm', messages: Array.from({ length: 65 }, () => ({ role: 'user', content: 'x' })) },
      /messages must contain no more than 64/,
    ],
    ['max_tokens 0', chat('hi', { max_tokens: 0 }), /max_tokens must not be less than 1/],
    [
      'max_tokens 8193',
      chat('hi', { max_tokens: 8193 }),
      /max_tokens must not be greater than 8192/,
    ],
    ['max_tokens as a string', chat('hi', { max_tokens: '12' }), /max_tokens must be an integer/],
    ['stream as a string', chat('hi', { stream: 'yes' }), /stream must be a boolean/],
    ['temperature 3', chat('hi', { temperature: 3 }), /temperature must not be greater than 2/],
    ['top_p -0.1', chat('hi', { top_p: -0.1 }), /top_p must not be less than 0/],
    [
      'five stop sequences',
      chat('hi', { stop: ['a', 'b', 'c', 'd', 'e'] }),
      /stop must be a string or an array of 1 to 4/,
    ],
  ])('should reject %s with 400 validation_failed', async (_name, body, problem) => {
    const res = await post(app, body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const p = (await res.json()) as { error: string; status: number; problems: string[] };
    expect(p.error).toBe('validation_failed');
    expect(p.status).toBe(400);
    expect(p.problems.some((m) => problem.test(m))).toBe(true);
  });

  it.each([
    ['truncated JSON', '{"model": "m", "messages": ['],
    ['not JSON at all', 'model=m'],
  ])('should answer %s with 400 malformed_body', async (_name, text) => {
    const res = await post(app, text);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const p = (await res.json()) as { error: string; request_id?: string };
    expect(p.error).toBe('malformed_body');
    expect(p.request_id).toBeTruthy();
  });

  it('should answer a body that is not JSON with 415 unsupported_media_type', async () => {
    const res = await post(app, '{"model":"m"}', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: string }).error).toBe('unsupported_media_type');
  });

  it('should report the demo model as ready', async () => {
    const res = await fetch(`${app.url}/health/ready`, READY_DETAIL);
    const body = (await res.json()) as {
      details: Record<string, { status: string; model?: string }>;
    };
    expect(body.details.inference).toEqual({
      status: 'up',
      backend: 'local',
      model: LOCAL_MODEL_NAME,
    });
  });
});
