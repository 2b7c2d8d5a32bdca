import { plainToInstance } from 'class-transformer';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionRequestDto } from '../../src/inference/dto/chat-completion-request.dto.js';
import type { InferenceCall, SseSink } from '../../src/inference/inference-backend.js';
import { InferenceError, isBackendFailure } from '../../src/inference/inference.errors.js';
import { UpstreamBackend } from '../../src/inference/upstream/upstream.backend.js';
import { UsageMeter } from '../../src/inference/tokens/usage-meter.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';

/**
 * The upstream timeout of the backend every test shares: far above any answer of the fake, so that a loaded machine
 * (a starved event loop) never turns an answer into a timeout. The timeout itself is tested on its own backend
 * against a fake that never answers, so whether it fires never depends on how fast the machine is.
 */
const TIMEOUT_MS = 60_000;
const SHORT_TIMEOUT_MS = 200;
/** Wait bound of `until`: a guard against a hang, never a measure (a starved machine may take seconds). */
const UNTIL_MS = 20_000;

function body(extra: Record<string, unknown> = {}): ChatCompletionRequestDto {
  return plainToInstance(ChatCompletionRequestDto, {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    ...extra,
  });
}

function call(): InferenceCall & { gone: AbortController; breaker: AbortController } {
  const gone = new AbortController();
  const breaker = new AbortController();
  return {
    gone,
    breaker,
    clientGone: gone.signal,
    signal: AbortSignal.any([gone.signal, breaker.signal]),
  };
}

/** Records each write as it happens. */
class RecordingSink implements SseSink {
  opened = false;
  readonly writes: string[] = [];
  open(): void {
    this.opened = true;
  }
  write(d: string | Uint8Array): Promise<void> {
    this.writes.push(Buffer.from(d).toString('utf8'));
    return Promise.resolve();
  }
  event(d: unknown): Promise<void> {
    return this.write(`data: ${JSON.stringify(d)}\n\n`);
  }
  end(): Promise<void> {
    return Promise.resolve();
  }
}

async function failure(p: Promise<unknown>): Promise<InferenceError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InferenceError);
  return e as InferenceError;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + UNTIL_MS;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe(UpstreamBackend.name, () => {
  let fake: FakeOpenAI;
  let backend: UpstreamBackend;
  let short: UpstreamBackend;

  beforeAll(async () => {
    // The tokenizer's first use loads its ranks (seconds, tens of seconds on a starved machine): here, under the
    // hook's bound, not inside a test's time and its waits.
    new UsageMeter('gpt-4o-mini').text('warm up');
    fake = await startFakeOpenAI();
    const options = { upstreamUrl: `${fake.url}/`, upstreamApiKey: 'sk-int-test' };
    // A stopped stream is read until the fake stops, however slow the machine (the drain's bound is not tested here).
    const stopDrain = { ms: TIMEOUT_MS, bytes: 256 * 1024 };
    backend = new UpstreamBackend({ ...options, upstreamTimeoutMs: TIMEOUT_MS, stopDrain });
    short = new UpstreamBackend({ ...options, upstreamTimeoutMs: SHORT_TIMEOUT_MS });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await backend?.close();
    await short?.close();
    await fake?.close();
  });

  it('should reuse one keep-alive connection for calls in a row', async () => {
    const before = fake.connections;
    for (let i = 0; i < 10; i++)
      expect((await backend.complete(body(), call())).object).toBe('chat.completion');
    // undici may open a second socket while the first is being released; never one per call
    expect(fake.connections - before).toBeLessThanOrEqual(2);
  });

  it('should answer a slow upstream within the timeout, and time out one that never answers', async () => {
    fake.setLatency(SHORT_TIMEOUT_MS);
    expect((await backend.complete(body(), call())).choices).toHaveLength(1);
    fake.setHang(true);
    const before = fake.aborted;
    const e = await failure(short.complete(body(), call()));
    expect(e.kind).toBe('timeout');
    expect(isBackendFailure(e)).toBe(true);
    await until(() => fake.aborted > before, 'the upstream to see the abort');
  });

  it("should abort the upstream call at once when the breaker's signal fires (a timeout, a failure)", async () => {
    fake.setHang(true);
    const c = call();
    const before = fake.aborted;
    const pending = failure(backend.complete(body(), c));
    await until(() => fake.inFlight === 1, 'the call to reach the upstream');
    c.breaker.abort();
    const e = await pending;
    expect(e.kind).toBe('timeout');
    expect(isBackendFailure(e)).toBe(true);
    await until(
      () => fake.aborted > before && fake.inFlight === 0,
      'the upstream to see the abort',
    );
  });

  it('should call a client that went away client_closed, not a failure', async () => {
    fake.setHang(true);
    const c = call();
    const pending = failure(backend.complete(body(), c));
    await until(() => fake.inFlight === 1, 'the call to reach the upstream');
    c.gone.abort();
    const e = await pending;
    expect(e.kind).toBe('client_closed');
    expect(isBackendFailure(e)).toBe(false);
  });

  it('should tell failures from rejections as the error rate changes', async () => {
    fake.setErrorRate(1);
    expect(isBackendFailure(await failure(backend.complete(body(), call())))).toBe(true);
    fake.setErrorRate(0);
    fake.setStatus(422);
    expect(isBackendFailure(await failure(backend.complete(body(), call())))).toBe(false);
    fake.setStatus(undefined);
    expect((await backend.complete(body(), call())).model).toBe('fake-gpt');
  });

  it('should write the upstream chunks through as they come', async () => {
    // The fake holds its stream after the first word: that word must reach the sink while the upstream is still
    // answering (relayed as it comes, not once the answer is whole), whatever the machine's speed.
    fake.pauseStreams();
    const sink = new RecordingSink();
    const done = backend.stream(body({ stream: true, max_tokens: 4 }), call(), sink);
    await until(() => sink.writes.join('').includes('"This"'), 'the first word, relayed');
    expect(fake.inFlight).toBe(1);
    expect(sink.writes.join('')).not.toContain('[DONE]');
    fake.resumeStreams();
    await done;
    const text = sink.writes.join('');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text.match(/^data: /gm)).toHaveLength(1 + 4 + 1 + 1);
  });

  it('should answer a JSON call with its own answer while endless streams run on the same upstream', async () => {
    // bench:attack's slow readers: endless streams held open while JSON calls come and go on one undici pool.
    fake.setEndlessStreams(64);
    fake.setLatency(20);
    const readers = Array.from({ length: 3 }, () => call());
    const streams = readers.map((c) =>
      backend.stream(body({ stream: true }), c, new RecordingSink()).catch(() => undefined),
    );
    await until(() => fake.inFlight === 3, 'the streams to reach the upstream');
    // Each JSON call arrives while a stream call arrives too (the fake answers after its latency).
    const mixed = Array.from({ length: 6 }, (_, i) => {
      const json = backend.complete(body(), call());
      const extra = call();
      readers.push(extra);
      streams.push(
        backend.stream(body({ stream: true }), extra, new RecordingSink()).catch(() => undefined),
      );
      return json.then((r) => `${i}:${r.object}`);
    });
    const answers = await Promise.all(mixed);
    expect(answers).toEqual(Array.from({ length: 6 }, (_, i) => `${i}:chat.completion`));
    for (const c of readers) c.gone.abort();
    await Promise.all(streams);
    await until(() => fake.inFlight === 0, 'the streams to end at the upstream');
  });

  it('should meter the chunks read off the upstream but not yet relayed when the client goes away', async () => {
    // A client that stops reading after the first word: the relay's write waits (as SseResponse's does) until the
    // client goes away; meanwhile the upstream finishes its answer, read into the response body behind that write.
    fake.setUsage('omit');
    fake.setChunkDelay(1);
    const c = call();
    const meter = new UsageMeter('gpt-4o-mini');
    const inner = new RecordingSink();
    const blocked = new Promise<void>((r) => c.gone.signal.addEventListener('abort', () => r()));
    inner.write = (d) => {
      inner.writes.push(Buffer.from(d).toString('utf8'));
      return inner.writes.join('').includes('"This"') ? blocked : Promise.resolve();
    };
    const done = backend.stream(body({ stream: true, max_tokens: 8 }), c, meter.sink(inner, false));
    await until(() => inner.writes.join('').includes('"This"'), 'the first word');
    await until(() => fake.inFlight === 0, 'the upstream to finish its answer');
    // Whether its last bytes were read off the socket before the abort or not, the stop reads them (the drain's
    // bound is far above this test's time), so no turn-counting is needed here.
    c.gone.abort();
    await done;
    // Every one of the 8 words the upstream sent is charged (one o200k token each), not only the one relayed.
    expect(meter.completion).toBe(8);
    expect(inner.writes.join('')).toContain('"content":" upstream"');
  });

  it('should fail a stream before its first byte as a plain error (the caller answers problem+json)', async () => {
    fake.setStatus(503);
    const sink = new RecordingSink();
    const e = await failure(backend.stream(body({ stream: true }), call(), sink));
    expect(e.problem.status).toBe(502);
    expect(sink.opened).toBe(false);
  });

  it('should check readiness with GET /models', async () => {
    const before = fake.modelRequests;
    expect(await backend.health(AbortSignal.timeout(1_000))).toMatchObject({
      backend: 'upstream',
      upstream: new URL(fake.url).origin,
    });
    expect(fake.modelRequests).toBe(before + 1);
    expect(fake.lastRequest?.headers.authorization).toBe('Bearer sk-int-test');
    fake.setStatus(500);
    await expect(backend.health(AbortSignal.timeout(1_000))).rejects.toThrow(
      'upstream GET /models answered 500',
    );
  });
});
