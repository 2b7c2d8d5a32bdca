import type { SseSink } from '../inference-backend.js';
import type { TokenUse } from '../../http/request-state.js';

/** Longest event relayed whole; a larger one is passed on as it comes and charged its bytes (an upper bound). */
const MAX_EVENT_CHARS = 262_144;

/** What the sink feeds (a UsageMeter): events seen, unparsed bytes, and the stream's own end (`[DONE]`). */
export interface StreamMeter {
  see(o: unknown): void;
  bytes(s: string): void;
  finished: boolean;
}

/** A usage object as the upstream reports it, when it has both counts as numbers ≥ 0 (explicit zeros too). */
export function usageOf(v: unknown): TokenUse | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const u = v as { prompt_tokens?: unknown; completion_tokens?: unknown };
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  return ok(u.prompt_tokens) && ok(u.completion_tokens)
    ? { prompt: u.prompt_tokens, completion: u.completion_tokens }
    : undefined;
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
    private readonly meter: StreamMeter,
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
    if (data === '[DONE]') this.meter.finished = true;
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
