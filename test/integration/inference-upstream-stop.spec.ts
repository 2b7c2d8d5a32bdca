import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { plainToInstance } from 'class-transformer';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionRequestDto } from '../../src/inference/dto/chat-completion-request.dto.js';
import type { InferenceCall, SseSink, StopDrained } from '../../src/inference/inference-backend.js';
import { UsageMeter } from '../../src/inference/tokens/usage-meter.js';
import { UpstreamBackend } from '../../src/inference/upstream/upstream.backend.js';
import { UpstreamStop } from '../../src/inference/upstream/upstream-stop.js';

// The stop of a stream (upstream-stop.ts): a half-close, then the answer read to its end (bounded). Every wait here is
// on an event or a count, never on the clock.

const streamBody = (): ChatCompletionRequestDto =>
  plainToInstance(ChatCompletionRequestDto, {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    max_tokens: 8,
  });

/**
 * A call whose stop reports (`stopped`) are kept: how its answer was read after the stop; and what it told the
 * breakers at its end (`ends`): the backend done (`backendDone`), or its caller gone (`callerGone`).
 */
function call(): InferenceCall & { gone: AbortController; drains: StopDrained[]; ends: string[] } {
  const gone = new AbortController();
  const drains: StopDrained[] = [];
  const ends: string[] = [];
  return {
    gone,
    drains,
    ends,
    clientGone: gone.signal,
    signal: gone.signal,
    stopped: (d) => void drains.push(d),
    backendDone: () => void ends.push('backendDone'),
    callerGone: () => void ends.push('callerGone'),
  };
}

/** A client's sink that takes everything (a client gone gets nothing: the meter sees it all the same). */
function clientSink(): SseSink {
  return {
    opened: false,
    open() {
      (this as { opened: boolean }).opened = true;
    },
    write: () => Promise.resolve(),
    event(d) {
      return this.write(`data: ${JSON.stringify(d)}\n\n`);
    },
    end: () => Promise.resolve(),
  };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 500) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A raw HTTP/1.1 upstream (net, half-open connections kept) that streams `first` one-token events at once, then, as
 * `then` says: `late` waits for the client's close (its FIN, whether a half-close or a close) and only then writes
 * `late` more events and ends its answer (it noticed the close one generation step late: the case a client's abort
 * races with); `endless` writes an event every `everyMs` (0: as fast as its socket takes them) until its connection is
 * destroyed, ignoring the half-close (as nginx with `proxy_ignore_client_abort on`). It counts the events it wrote.
 */
async function rawUpstream(first: number, then: { late: number } | { everyMs: number }) {
  let written = 0;
  let ended = false;
  let closed = false;
  const event = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' the' } }] })}\n\n`;
  const chunk = `${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`;
  const send = (s: Socket): boolean => (written++, s.write(chunk));
  const server: Server = createServer({ allowHalfOpen: true }, (s: Socket) => {
    s.once('data', () => {
      s.write(
        'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n',
      );
      for (let i = 0; i < first; i++) send(s);
      if ('late' in then)
        s.once('end', () => {
          for (let i = 0; i < then.late && !s.destroyed; i++) send(s);
          s.end('0\r\n\r\n');
        });
      else {
        const tick = (): void => {
          if (s.destroyed) return;
          const more = send(s);
          if (then.everyMs > 0) setTimeout(tick, then.everyMs);
          else if (more) setImmediate(tick);
          else s.once('drain', tick);
        };
        tick();
      }
    });
    s.on('end', () => (ended = true));
    s.on('close', () => (closed = true));
    s.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    written: () => written,
    sawEnd: () => ended,
    sawClose: () => closed,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe(UpstreamStop.name, () => {
  beforeAll(() => {
    // The tokenizer's first use loads its ranks (seconds on a loaded machine): not in the middle of a stream.
    new UsageMeter('gpt-4o-mini').text('warm up');
  });

  it('should charge the events the upstream wrote after the stop, before it noticed the close (a caller gone)', async () => {
    const up = await rawUpstream(3, { late: 5 });
    const b = new UpstreamBackend({ upstreamUrl: up.url, upstreamTimeoutMs: 600_000 });
    try {
      const c = call();
      const meter = new UsageMeter('gpt-4o-mini');
      const done = b.stream(streamBody(), c, meter.sink(clientSink(), false));
      await until(() => meter.completion === 3, 'the first events');
      c.gone.abort();
      await done;
      expect(up.written()).toBe(8);
      expect(meter.completion).toBe(up.written()); // one token each: every one it wrote is charged
      expect(c.drains).toEqual(['drained']); // read until the upstream stopped: its charge is abort_partial
      // Its answer ended (no `[DONE]`) because it was stopped: the breakers hear of a caller gone, not of its end.
      expect(c.ends).toEqual(['callerGone']);
    } finally {
      await b.close();
      await up.close();
    }
  });

  it.each([
    ['bytes', 0, { ms: 600_000, bytes: 64 * 1024 }],
    ['time', 5, { ms: 50, bytes: 1024 * 1024 * 1024 }],
  ] as const)(
    'should stop reading an upstream that ignores the half-close at the drain bound (%s)',
    async (_bound, everyMs, stopDrain) => {
      const up = await rawUpstream(1, { everyMs });
      const b = new UpstreamBackend({ upstreamUrl: up.url, upstreamTimeoutMs: 600_000, stopDrain });
      try {
        const c = call();
        const meter = new UsageMeter('gpt-4o-mini');
        const done = b.stream(streamBody(), c, meter.sink(clientSink(), false));
        await until(() => meter.completion > 0, 'the first events');
        c.gone.abort();
        await done; // ends: the drain's bound destroyed the connection
        await until(() => up.sawClose(), 'the upstream to see its connection closed');
        expect(up.sawEnd()).toBe(true); // it was told (half-close) before it was cut
        expect(meter.completion).toBeGreaterThan(0);
        expect(c.drains).toEqual(['cut']); // what it wrote past the bound was never read: abort_cut
        expect(c.ends).toEqual(['callerGone']);
      } finally {
        await b.close();
        await up.close();
      }
    },
  );
});
