import { plainToInstance } from 'class-transformer';
import { describe, expect, it } from 'vitest';
import { ChatCompletionRequestDto } from '../dto/chat-completion-request.dto.js';
import type { InferenceCall, SseSink } from '../inference-backend.js';
import { InferenceError } from '../inference.errors.js';
import { LOCAL_MODEL_NAME, LocalModelBackend } from './local-model.backend.js';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const backend = new LocalModelBackend(() => NOW);

function body(content: string, extra: Record<string, unknown> = {}): ChatCompletionRequestDto {
  return plainToInstance(ChatCompletionRequestDto, {
    model: 'any',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content },
    ],
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

/** Collects what a stream writes. */
class MemorySink implements SseSink {
  opened = false;
  ended = false;
  readonly data: string[] = [];
  onWrite?: (n: number) => void;
  open(): void {
    this.opened = true;
  }
  write(d: string | Uint8Array): Promise<void> {
    this.data.push(
      ...String(d)
        .split('\n\n')
        .filter(Boolean)
        .map((e) => e.replace(/^data: /, '')),
    );
    this.onWrite?.(this.data.length);
    return Promise.resolve();
  }
  event(d: unknown): Promise<void> {
    return this.write(`data: ${JSON.stringify(d)}\n\n`);
  }
  end(): Promise<void> {
    this.ended = true;
    return Promise.resolve();
  }
}

describe(LocalModelBackend.name, () => {
  it('should answer a chat.completion with the analysis of the last user message', async () => {
    const c = await backend.complete(body('I absolutely love the new park downtown!'), call());
    expect(c).toMatchObject({
      object: 'chat.completion',
      created: Math.floor(NOW / 1000),
      model: LOCAL_MODEL_NAME,
    });
    expect(c.choices).toHaveLength(1);
    expect(c.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant' },
    });
    expect(c.choices[0]!.message.content).toMatch(/tone is positive/);
    expect(c.choices[0]!.message.content).toMatch(/Key words: .*park/);
    // "You are terse." = 4 tokens, the user message = 8 tokens
    expect(c.usage.prompt_tokens).toBe(12);
    expect(c.usage.total_tokens).toBe(c.usage.prompt_tokens + c.usage.completion_tokens);
  });

  it('should cut at a stop sequence with finish_reason "stop"', async () => {
    const c = await backend.complete(body('Hello there', { stop: ['tone'] }), call());
    expect(c.choices[0]!.message.content).toMatch(
      /^I read your message: 2 tokens in 1 sentence\. Its$/,
    );
    expect(c.choices[0]!.finish_reason).toBe('stop');
  });

  it('should honour max_tokens with finish_reason "length"', async () => {
    const c = await backend.complete(body('Hello there', { max_tokens: 1 }), call());
    expect(c.choices[0]!.message.content).toBe('I');
    expect(c.usage.completion_tokens).toBe(1);
    expect(c.choices[0]!.finish_reason).toBe('length');
  });

  it('should stream role, content, finish and usage chunks, then [DONE]', async () => {
    const sink = new MemorySink();
    const json = await backend.complete(body('Meet me at 5 pm', { max_tokens: 4 }), call());
    await backend.stream(
      body('Meet me at 5 pm', {
        max_tokens: 4,
        stream: true,
        stream_options: { include_usage: true },
      }),
      call(),
      sink,
    );
    expect(sink.opened && sink.ended).toBe(true);
    expect(sink.data.at(-1)).toBe('[DONE]');
    const chunks = sink.data.slice(0, -1).map(
      (d) =>
        JSON.parse(d) as {
          choices: { delta: { content?: string; role?: string }; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    expect(chunks).toHaveLength(1 + 4 + 1 + 1);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(
      chunks
        .slice(1, 5)
        .map((c) => c.choices[0]!.delta.content)
        .join(''),
    ).toBe(json.choices[0]!.message.content);
    expect(chunks[5]!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length' });
    expect(chunks[6]).toMatchObject({ choices: [], usage: json.usage });
  });

  it('should tell the breakers its work is done after its last event, before the stream ends (and not on an abort)', async () => {
    const sink = new MemorySink();
    const seen: string[] = [];
    const c = { ...call(), backendDone: () => seen.push(`done after ${sink.data.length}`) };
    const end = sink.end.bind(sink);
    sink.end = () => (seen.push('end'), end());
    await backend.stream(body('A long enough message to stream'), c, sink);
    expect(sink.data.at(-1)).toBe('[DONE]');
    expect(seen).toEqual([`done after ${sink.data.length}`, 'end']);
    const gone = { ...call(), backendDone: () => seen.push('done on abort') };
    const left = new MemorySink();
    left.onWrite = (n) => n === 3 && gone.gone.abort();
    await backend.stream(body('A long enough message to stream'), gone, left);
    expect(left.ended).toBe(true);
    expect(seen).not.toContain('done on abort');
  });

  it('should stop quietly when the client goes away mid-stream, and tell the breakers the call proves nothing', async () => {
    const sink = new MemorySink();
    let gone = 0;
    const c = { ...call(), callerGone: () => void gone++ };
    sink.onWrite = (n) => n === 3 && c.gone.abort();
    await backend.stream(body('A long enough message to stream'), c, sink);
    expect(sink.data).toHaveLength(3);
    expect(sink.ended).toBe(true);
    expect(gone).toBe(1);
    // A whole answer, or a breaker abort, is no caller gone.
    const whole = { ...call(), callerGone: () => void gone++ };
    await backend.stream(body('A long enough message to stream'), whole, new MemorySink());
    const b = { ...call(), callerGone: () => void gone++ };
    const cut = new MemorySink();
    cut.onWrite = (n) => n === 3 && b.breaker.abort();
    await backend.stream(body('A long enough message to stream'), b, cut).catch(() => undefined);
    expect(gone).toBe(1);
  });

  it('should end with an error event and fail when the breaker aborts mid-stream', async () => {
    const sink = new MemorySink();
    const c = call();
    sink.onWrite = (n) => n === 3 && c.breaker.abort();
    const err = await backend
      .stream(body('A long enough message to stream'), c, sink)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InferenceError);
    expect((err as InferenceError).kind).toBe('timeout');
    expect(JSON.parse(sink.data.at(-1)!)).toMatchObject({
      error: { type: 'server_error', code: 'upstream_timeout' },
    });
  });

  it('should report itself ready with its model name', async () => {
    expect(await backend.health()).toEqual({ backend: 'local', model: LOCAL_MODEL_NAME });
  });
});
