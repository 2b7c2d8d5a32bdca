import type { TokenUse } from '../../http/request-state.js';
import type { SseSink } from '../inference-backend.js';
import { MeteredSink, usageOf } from './metered-sink.js';
import { TokenCounter, encodingOf } from './token-count.js';
import type { StopDrained } from '../inference-backend.js';

/**
 * Characters of one stream's answer text tokenized at most (past it, UTF-8 bytes: an upper bound). An answer of
 * 8 192 tokens is about 32 KB of text; this bounds the CPU a stream's metering costs on the event loop.
 */
const MAX_STREAMED_CHARS = 65_536;

export { usageOf };

/**
 * What one answer used, for its token settlement: the upstream's `usage` when it reported one (never replaced
 * by an estimate, zeros included), else the prompt's admission count plus the answer's text counted with the
 * model's tokenizer (the deltas of a stream as they were read off the upstream, so a client abort counts what the
 * upstream sent until it stopped: upstream-stop.ts).
 */
export class UsageMeter {
  reported?: TokenUse;
  completion = 0;
  /** The answer ended whole: a choice's `finish_reason` or the stream's `[DONE]` was seen. */
  finished = false;
  /** How a stream the call stopped was read after the stop (upstream-stop.ts): to its end, or cut at the drain's bound. */
  stop?: StopDrained;
  private counter?: TokenCounter;
  private metered?: SseSink;

  constructor(private readonly model: string) {}

  /** A stream sink that meters what passes through it (MeteredSink). */
  sink(inner: SseSink, clientWantsUsage: boolean): SseSink {
    return (this.metered = new MeteredSink(inner, this, clientWantsUsage));
  }

  /** True once a metered stream sent its headers (an answer started). */
  get opened(): boolean {
    return this.metered?.opened === true;
  }

  /** Text relayed unparsed (an oversized event): its UTF-8 bytes, an upper bound of its tokens. */
  bytes(s: string): void {
    this.completion += Buffer.byteLength(s, 'utf8');
  }

  text(s: string): void {
    if (s.length === 0) return;
    this.counter ??= new TokenCounter(encodingOf(this.model).encoding, MAX_STREAMED_CHARS);
    this.completion += this.counter.count(s);
  }

  /** One chat.completion or chunk: its usage, or the text of its choices. */
  see(o: unknown): void {
    if (typeof o !== 'object' || o === null) return;
    const u = usageOf((o as { usage?: unknown }).usage);
    if (u) this.reported = u;
    const choices = (o as { choices?: unknown }).choices;
    if (!Array.isArray(choices)) return;
    for (const c of choices as {
      delta?: { content?: unknown };
      message?: { content?: unknown };
      finish_reason?: unknown;
    }[]) {
      if (typeof c?.finish_reason === 'string') this.finished = true;
      const content = c?.delta?.content ?? c?.message?.content;
      if (typeof content === 'string') this.text(content);
    }
  }

  /** A whole JSON answer (chat.completion): seen, and the answer ended. */
  answer(o: unknown): void {
    this.see(o);
    this.finished = true;
  }

  used(prompt: number): TokenUse {
    return this.reported ?? { prompt, completion: this.completion };
  }
}
