import type { SseSink } from '../inference-backend.js';
import type { ChatCompletion } from '../openai.types.js';

/** Characters of one streamed answer recorded at most; a longer answer is not cached. */
const MAX_RECORDED_CHARS = 262_144;

interface Choice {
  content: string;
  finish: string | null;
}

/**
 * Assembles a streamed answer into the chat.completion it amounts to, as its events pass on to the
 * client unchanged: the first chunk's id, model and created, each choice's text and finish reason,
 * and the usage chunk. `completion()` is the answer only when the stream finished normally (its
 * `data: [DONE]` passed, no error event, nothing over the bound).
 */
export class StreamRecording {
  private head?: { id: unknown; created: unknown; model: unknown };
  private readonly choices = new Map<number, Choice>();
  private usage: unknown;
  private buf = '';
  private chars = 0;
  private done = false;
  private broken = false;
  private readonly decoder = new TextDecoder();

  /** A sink that records what passes through it into `inner`. */
  sink(inner: SseSink): SseSink {
    return {
      open: () => inner.open(),
      get opened() {
        return inner.opened;
      },
      write: (data) => {
        this.take(typeof data === 'string' ? data : this.decoder.decode(data, { stream: true }));
        return inner.write(data);
      },
      event: (data) => {
        this.see(data);
        return inner.event(data);
      },
      end: () => inner.end(),
    };
  }

  /** The whole answer, when the stream finished normally; else undefined. */
  completion(): ChatCompletion | undefined {
    if (!this.done || this.broken || !this.head || this.choices.size === 0) return undefined;
    return {
      id: this.head.id,
      object: 'chat.completion',
      created: this.head.created,
      model: this.head.model,
      choices: [...this.choices].map(([index, c]) => ({
        index,
        message: { role: 'assistant', content: c.content },
        finish_reason: c.finish,
        logprobs: null,
      })),
      ...(this.usage ? { usage: this.usage } : {}),
    } as ChatCompletion;
  }

  /** Framed text: whole events are parsed, a partial one waits for its end. */
  private take(text: string): void {
    if (this.broken) return;
    this.buf += text.replace(/\r\n/g, '\n');
    for (let e = this.buf.indexOf('\n\n'); e >= 0; e = this.buf.indexOf('\n\n')) {
      const data = this.buf
        .slice(0, e)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      this.buf = this.buf.slice(e + 2);
      if (data === '[DONE]') this.done = true;
      else if (data.length > 0) this.parse(data);
    }
    if (this.buf.length > MAX_RECORDED_CHARS) this.broken = true;
  }

  private parse(data: string): void {
    try {
      this.see(JSON.parse(data));
    } catch {
      this.broken = true;
    }
  }

  /** One chunk: its head, its choices' text and finish reasons, its usage; an error event breaks the record. */
  private see(o: unknown): void {
    if (typeof o !== 'object' || o === null) return;
    const c = o as { id?: unknown; created?: unknown; model?: unknown; error?: unknown };
    if (c.error !== undefined) this.broken = true;
    this.head ??= { id: c.id, created: c.created, model: c.model };
    const { usage, choices } = o as { usage?: unknown; choices?: unknown };
    if (usage) this.usage = usage;
    if (!Array.isArray(choices)) return;
    for (const ch of choices as {
      index?: unknown;
      delta?: { content?: unknown };
      finish_reason?: unknown;
    }[]) {
      const index = typeof ch?.index === 'number' ? ch.index : 0;
      const choice = this.choices.get(index) ?? { content: '', finish: null };
      this.choices.set(index, choice);
      const text = ch?.delta?.content;
      if (typeof text === 'string') choice.content += text;
      if (typeof ch?.finish_reason === 'string') choice.finish = ch.finish_reason;
      this.chars += typeof text === 'string' ? text.length : 0;
    }
    if (this.chars > MAX_RECORDED_CHARS || this.choices.size > 16) this.broken = true;
  }
}
