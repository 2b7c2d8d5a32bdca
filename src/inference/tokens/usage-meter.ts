import type { TokenUse } from '../../http/request-state.js';
import type { SseSink } from '../inference-backend.js';
import { TokenCounter, encodingOf } from './token-count.js';

/**
 * Characters of one stream's answer text tokenized at most (past it, UTF-8 bytes: an upper bound). An answer of
 * 8 192 tokens is about 32 KB of text; this bounds the CPU a stream's metering costs on the event loop.
 */
const MAX_STREAMED_CHARS = 65_536;
/** Longest event relayed whole; a larger one is passed on as it comes and charged its bytes (an upper bound). */
const MAX_EVENT_CHARS = 262_144;

/** A usage object as the upstream reports it, when it has both counts as numbers ≥ 0 (explicit zeros too). */
export function usageOf(v: unknown): TokenUse | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const u = v as { prompt_tokens?: unknown; completion_tokens?: unknown };
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  return ok(u.prompt_tokens) && ok(u.completion_tokens)
    ? { prompt: u.prompt_tokens, completion: u.completion_tokens }
    : undefined;
}

/**
 * What one answer used, for its token settlement: the upstream's `usage` when it reported one (never replaced
 * by an estimate, zeros included), else the prompt's admission count plus the answer's text counted with the
 * model's tokenizer (the deltas of a stream as they were read off the upstream, so a client abort counts what the
 * upstream sent until it stopped: upstream-stop.ts).
 */
export class UsageMeter {
  reported?: TokenUse;
  completion = 0;
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
    }[]) {
      const content = c?.delta?.content ?? c?.message?.content;
      if (typeof content === 'string') this.text(content);
    }
  }

  used(prompt: number): TokenUse {
    return this.reported ?? { prompt, completion: this.completion };
  }
}

/** The first event end (`\n\n` or `\r\n\r\n`) from `from`: its index and length, or undefined. */
function eventEnd(buf: string, from: number): [number, number] | undefined {
  const lf = buf.indexOf('\n\n', from);
  const crlf = buf.indexOf('\r\n\r\n', from);
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return [crlf, 4];
  return lf >= 0 ? [lf, 2] : undefined;
}

/**
 * A stream sink that meters what passes: whole server-sent events are relayed (a partial one waits for its end),
 * their usage and deltas fed to the meter, and the usage-only chunk (`choices: []`) dropped when the client did
 * not ask for it (Rampart asks the upstream for usage on every stream).
 */
export class MeteredSink implements SseSink {
  private buf = '';
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly inner: SseSink,
    private readonly meter: UsageMeter,
    private readonly clientWantsUsage: boolean,
  ) {}

  get opened(): boolean {
    return this.inner.opened;
  }

  open(): void {
    this.inner.open();
  }

  write(data: string | Uint8Array): Promise<void> {
    // Only the new text (and the 3 characters before it) can hold an event end not seen yet.
    let from = Math.max(0, this.buf.length - 3);
    this.buf += typeof data === 'string' ? data : this.decoder.decode(data, { stream: true });
    let out = '';
    for (let e = eventEnd(this.buf, from); e; e = eventEnd(this.buf, from)) {
      const event = this.buf.slice(0, e[0]);
      this.buf = this.buf.slice(e[0] + e[1]);
      from = 0;
      if (this.keep(event)) out += `${event}\n\n`;
    }
    if (this.buf.length > MAX_EVENT_CHARS) {
      this.meter.bytes(this.buf);
      out += this.buf;
      this.buf = '';
    }
    return out.length > 0 ? this.inner.write(out) : Promise.resolve();
  }

  event(data: unknown): Promise<void> {
    this.meter.see(data);
    return this.usageOnly(data) ? Promise.resolve() : this.inner.event(data);
  }

  async end(): Promise<void> {
    if (this.buf.length > 0 && this.inner.opened) {
      this.meter.bytes(this.buf);
      await this.inner.write(this.buf);
    }
    this.buf = '';
    return this.inner.end();
  }

  /** Meters one event; false for a usage-only chunk the client did not ask for. */
  private keep(event: string): boolean {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (data.length === 0 || data === '[DONE]') return true;
    let o: unknown;
    try {
      o = JSON.parse(data);
    } catch {
      // Not JSON (the rest of an oversized event, or a broken one): relayed, charged its bytes.
      this.meter.bytes(data);
      return true;
    }
    this.meter.see(o);
    return !this.usageOnly(o);
  }

  private usageOnly(o: unknown): boolean {
    if (this.clientWantsUsage || typeof o !== 'object' || o === null) return false;
    const c = o as { choices?: unknown; usage?: unknown };
    return Array.isArray(c.choices) && c.choices.length === 0 && usageOf(c.usage) !== undefined;
  }
}
