import OpenAI, { BadRequestError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';
import { FAKE_MODEL, FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';
import { chatParams, openAiClient } from '../support/openai-sdk.js';
import { testApps } from '../support/signature-routes.js';

const API_KEY = 'sk-rampart-upstream-0123456789';

/**
 * The official OpenAI SDK through Rampart's upstream proxy, against the fake
 * OpenAI upstream (a real HTTP server), behind the shipped policies.
 */
describe.each(ADAPTERS)('the official OpenAI SDK through the upstream proxy (%s)', (adapter) => {
  const apps = testApps();
  const creds = { appId: apps.main.appId, secret: apps.main.secrets[1]!, keyId: 'k2' };
  let fake: FakeOpenAI;
  let app: RunningApp;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    app = await startApp({
      HTTP_ADAPTER: adapter,
      APPS_FILE: apps.file,
      INFERENCE_UPSTREAM_URL: fake.url,
      INFERENCE_UPSTREAM_API_KEY: API_KEY,
    });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('should proxy a completion with Rampart’s own credentials, never the caller’s headers', async () => {
    const { client } = openAiClient(app, creds);
    const c = await client.chat.completions.create(chatParams('Hello upstream', { max_tokens: 4 }));
    expect(c.model).toBe(FAKE_MODEL);
    expect(c.choices[0]!.message.content).toBe('This is a fake');
    const seen = fake.lastRequest!;
    expect(seen.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen.headers['x-signature']).toBeUndefined();
    expect(seen.headers['x-stainless-retry-count']).toBeUndefined();
    expect(seen.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 4, stream: false });
  });

  it('should relay a stream with include_usage to the SDK’s reader', async () => {
    const { client } = openAiClient(app, creds);
    const stream = await client.chat.completions.create({
      ...chatParams('Stream please'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(
      'This is a fake answer from the upstream',
    );
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 8 } });
    expect(fake.lastRequest!.body).toMatchObject({ stream_options: { include_usage: true } });
  });

  it('should abort the upstream call when the client aborts the stream', async () => {
    fake.pauseStreams();
    const { client } = openAiClient(app, creds);
    const stream = await client.chat.completions.create({
      ...chatParams('Abort me'),
      stream: true,
    });
    const it = stream[Symbol.asyncIterator]();
    expect((await it.next()).value?.choices[0]?.delta.role).toBe('assistant');
    expect((await it.next()).value?.choices[0]?.delta.content).toBe('This');
    const before = fake.aborted;
    stream.controller.abort();
    await expect.poll(() => fake.aborted, { timeout: 10_000 }).toBeGreaterThan(before);
    await expect.poll(() => fake.inFlight, { timeout: 10_000 }).toBe(0);
  });

  it('should list the upstream’s models, then answer from the cache shield', async () => {
    const { client } = openAiClient(app, creds);
    const first = await client.models.list().withResponse();
    expect(first.data.data.map((m) => [m.id, m.owned_by])).toEqual([[FAKE_MODEL, 'rampart-tests']]);
    fake.setStatus(500); // the cached list is served without asking the upstream again
    const second = await client.models.list().withResponse();
    expect(second.response.headers.get('rampart-shield')).toBe('cache-hit');
    expect(second.data.data.map((m) => m.id)).toEqual([FAKE_MODEL]);
  });

  it('should surface an upstream 4xx as the SDK’s error class with Rampart’s code', async () => {
    fake.setStatus(400);
    const { client, attempts } = openAiClient(app, creds);
    const err = await client.chat.completions.create(chatParams('bad')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({
      status: 400,
      code: 'upstream_rejected',
      type: 'invalid_request_error',
      message: '400 fake upstream answered 400',
    });
    expect(attempts).toHaveLength(1);
  });
});
