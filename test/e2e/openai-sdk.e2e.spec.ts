import OpenAI, { AuthenticationError, BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_NAME } from '../../src/inference/local/local-model.backend.js';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { chatParams, openAiClient } from '../support/openai-sdk.js';
import { testApps } from '../support/signature-routes.js';

/**
 * The official OpenAI SDK (openai@5) against Rampart's demo model, unchanged
 * but for `baseURL` and Rampart's signing `fetch`, behind the shipped
 * `inference` and `models` policies (all four locks).
 */
describe.each(ADAPTERS)('the official OpenAI SDK through Rampart, demo model (%s)', (adapter) => {
  const apps = testApps();
  const creds = { appId: apps.main.appId, secret: apps.main.secrets[0]! };
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter, APPS_FILE: apps.file });
  });
  afterAll(() => app?.close());

  it('should answer a completion at POST /v1/chat/completions', async () => {
    const { client, attempts } = openAiClient(app, creds);
    const c = await client.chat.completions.create(
      chatParams('I love the new park in Lisbon, opened on 3 May 2025!'),
    );
    expect(c.object).toBe('chat.completion');
    expect(c.model).toBe(LOCAL_MODEL_NAME);
    expect(c.choices[0]!.message.content).toContain('tone is positive');
    expect(c.usage!.total_tokens).toBeGreaterThan(0);
    expect(attempts.map((a) => [a.path, a.status])).toEqual([['/v1/chat/completions', 200]]);
  });

  it('should stream chunks to the SDK’s own SSE reader, with the usage chunk last', async () => {
    const { client } = openAiClient(app, creds);
    const stream = await client.chat.completions.create({
      ...chatParams('The service was slow and awful.'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toContain('tone is negative');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBe(chunks.length - 3); // role chunk, finish chunk, usage chunk
  });

  it('should list the demo model at GET /v1/models, the second time from the cache shield', async () => {
    const { client } = openAiClient(app, creds);
    const page = await client.models.list();
    expect(page.data.map((m) => [m.id, m.object, m.owned_by])).toEqual([
      [LOCAL_MODEL_NAME, 'model', 'rampart'],
    ]);
    const { response } = await client.models.list().withResponse();
    expect(response.headers.get('rampart-shield')).toBe('cache-hit');
  });

  it('should surface a bad signature as AuthenticationError with Rampart’s code and message', async () => {
    const { client, attempts } = openAiClient(app, { ...creds, secret: 'x'.repeat(43) });
    const err = await client.chat.completions.create(chatParams('hi')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    const e = err as AuthenticationError;
    expect(e.status).toBe(401);
    expect(e.code).toBe('bad_signature');
    expect(e.type).toBe('authentication_error');
    expect(e.message).toBe('401 signature does not match');
    expect(e.requestID).toMatch(/\S/);
    expect(attempts).toHaveLength(1); // a 401 is not retried
  });

  it('should surface invalid input as BadRequestError naming the field', async () => {
    const { client } = openAiClient(app, creds);
    const err = await client.chat.completions
      .create(chatParams('hi', { max_tokens: 100_000 }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ code: 'validation_failed', param: 'max_tokens' });
  });

  it('should answer problems on the OpenAI routes with problem+json members and OpenAI’s error object', async () => {
    const res = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatParams('hi')),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toEqual({
      type: 'https://rampart.dev/problems/missing_header',
      title: expect.any(String),
      status: 401,
      detail: expect.any(String),
      code: 'missing_header',
      request_id: res.headers.get('x-request-id'),
      error: {
        message: expect.any(String),
        type: 'authentication_error',
        code: 'missing_header',
        param: null,
      },
    });
  });

  it.each([
    ['text/plain', 'hi', 415, 'unsupported_media_type'],
    ['application/json', '{"model": ', 400, 'malformed_body'],
  ])(
    'should use OpenAI’s error object for a %s body refused before any lock (%i)',
    async (type, body, status, code) => {
      const res = await fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({
        status,
        code,
        error: { code, type: 'invalid_request_error' },
      });
    },
  );

  it('should list both chat routes and the model list in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.paths['/v1/chat/completions']?.post).toBeDefined();
    expect(doc.paths['/v1/inference']?.post).toBeDefined();
    expect(doc.paths['/v1/models']?.get).toBeDefined();
  });

  it('should keep plain problem+json on the /v1/inference alias', async () => {
    const res = await fetch(`${app.url}/v1/inference`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatParams('hi')),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'missing_header', status: 401 });
  });

  it('should work the same with RFC 9421 signatures', async () => {
    const { client, attempts } = openAiClient(app, { ...creds, keyId: 'k1', scheme: 'rfc9421' });
    const c = await client.chat.completions.create(chatParams('Hello from RFC 9421'));
    expect(c.model).toBe(LOCAL_MODEL_NAME);
    const models = await client.models.list();
    expect(models.data).toHaveLength(1);
    expect(attempts.every((a) => a.status === 200 && a.nonce !== undefined)).toBe(true);
  });
});
