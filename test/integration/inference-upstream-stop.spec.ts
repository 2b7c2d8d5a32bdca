import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { plainToInstance } from 'class-transformer';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionRequestDto } from '../../src/inference/dto/chat-completion-request.dto.js';
import type { InferenceCall, SseSink } from '../../src/inference/inference-backend.js';
import { UsageMeter } from '../../src/inference/tokens/usage-meter.js';
import { UpstreamBackend } from '../../src/inference/upstream/upstream.backend.js';
import { UpstreamStop } from '../../src/inference/upstream/upstream-stop.js';
import { FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';

// The stop of a stream (upstream-stop.ts): a half-close, then the answer read to its end (bounded). Every wait here is
// on an event or a count, never on the clock.

const streamBody = (): ChatCompletionRequestDto =>
  plainToInstance(ChatCompletionRequestDto, {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    max_tokens: 8,
  });

function call(): InferenceCall & { gone: AbortController } {
  const gone = new AbortController();
  return { gone, clientGone: gone.signal, signal: gone.signal };
}

/** A client's sink: records what it was sent; with `release`, every write after the first waits for it. */
function clientSink(release?: Promise<void>): SseSink & { text: () => string } {
  const writes: string[] = [];
  return {
    opened: false,
    open() {
      (this as { opened: boolean }).opened = true;
    },
    write(d) {
      writes.push(Buffer.from(d).toString('utf8'));
      return release && writes.length > 1 ? release : Promise.resolve();
    },
    event(d) {
      return this.write(`data: ${JSON.stringify(d)}\n\n`);
    },
    end: () => Promise.resolve(),
    text: () => writes.join(''),
  };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 500) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * An upstream that ignores the half-close (as nginx with `proxy_ignore_client_abort on`, or a server that keeps
 * half-open connections): it answers an endless event stream, a chunk every `everyMs` (0: as fast as its socket
 * takes them), until its connection is destroyed.
 */
async function endlessUpstream(everyMs: number): Promise<{
  url: string;
  sawEnd: () => boolean;
  sawClose: () => boolean;
  close: () => Promise<void>;
}> {
  let ended = false;
  let closed = false;
  const event = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' more' } }] })}\n\n`;
  const chunk = `${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`;
  const server: Server = createServer({ allowHalfOpen: true }, (s: Socket) => {
    s.once('data', () => {
      s.write(
        'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n',
      );
      const tick = (): void => {
        if (s.destroyed) return;
        const more = s.write(chunk);
        if (everyMs > 0) setTimeout(tick, everyMs);
        else if (more) setImmediate(tick);
        else s.once('drain', tick);
      };
      tick();
    });
    s.on('end', () => (ended = true));
    s.on('close', () => (closed = true));
    s.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    sawEnd: () => ended,
    sawClose: () => closed,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe(UpstreamStop.name, () => {
  let fake: FakeOpenAI;
  let backend: UpstreamBackend;

  beforeAll(async () => {
    // The tokenizer's first use loads its ranks (seconds on a loaded machine): not in the middle of a stream, where
    // the blocked event loop would outlast the fake's keep-alive timeout and the next call would find its socket closed.
    new UsageMeter('gpt-4o-mini').text('warm up');
    fake = await startFakeOpenAI();
    backend = new UpstreamBackend({ upstreamUrl: fake.url, upstreamTimeoutMs: 10_000 });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await backend?.close();
    await fake?.close();
  });

  it('should charge every byte the upstream wrote before the stop, however much of it was still in the kernel', async () => {
    // 8 words of 24 KB: the answer (192 KB) is more than the response body holds (16 KB, plus one 64 KB read), so
    // while the client does not read, most of it waits in the socket buffers, unread by Rampart. An abort would lose
    // it; the half-close reads it to the answer's end (within the drain's 256 KiB).
    fake.setUsage('omit');
    fake.setWordPadding(24_000);
    fake.setChunkDelay(0);
    const whole = new UsageMeter('gpt-4o-mini');
    await backend.stream(streamBody(), call(), whole.sink(clientSink(), false));
    expect(whole.completion).toBeGreaterThan(8);

    const c = call();
    const meter = new UsageMeter('gpt-4o-mini');
    const gone = new Promise<void>((r) => c.gone.signal.addEventListener('abort', () => r()));
    const sink = clientSink(gone);
    const done = backend.stream(streamBody(), c, meter.sink(sink, false));
    await until(() => sink.text().includes('"This'), 'the first word');
    await until(() => fake.inFlight === 0, 'the upstream to have written its whole answer');
    c.gone.abort();
    await done;
    expect(meter.completion).toBe(whole.completion);
    // The half-closed connection went out of the pool: the next stream is answered whole on another.
    const next = new UsageMeter('gpt-4o-mini');
    await backend.stream(streamBody(), call(), next.sink(clientSink(), false));
    expect(next.completion).toBe(whole.completion);
  });

  it.each([
    ['bytes', 0, { ms: 600_000, bytes: 64 * 1024 }],
    ['time', 5, { ms: 50, bytes: 1024 * 1024 * 1024 }],
  ] as const)(
    'should stop reading an upstream that ignores the half-close at the drain bound (%s)',
    async (_bound, everyMs, stopDrain) => {
      const up = await endlessUpstream(everyMs);
      const b = new UpstreamBackend({ upstreamUrl: up.url, upstreamTimeoutMs: 600_000, stopDrain });
      try {
        const c = call();
        const meter = new UsageMeter('gpt-4o-mini');
        const sink = clientSink();
        const done = b.stream(streamBody(), c, meter.sink(sink, false));
        await until(() => meter.completion > 0, 'the first chunks');
        c.gone.abort();
        await done; // ends: the drain's bound destroyed the connection
        await until(() => up.sawClose(), 'the upstream to see its connection closed');
        expect(up.sawEnd()).toBe(true); // it was told (half-close) before it was cut
        expect(meter.completion).toBeGreaterThan(0);
      } finally {
        await b.close();
        await up.close();
      }
    },
  );
});
