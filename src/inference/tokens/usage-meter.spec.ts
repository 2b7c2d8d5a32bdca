import { describe, expect, it } from 'vitest';
import type { SseSink } from '../inference-backend.js';
import { UsageMeter, usageOf } from './usage-meter.js';

/** An SseSink that keeps what it was given. */
function memorySink(): SseSink & { text: string } {
  const s = {
    text: '',
    opened: false,
    open: () => void (s.opened = true),
    write: (d: string | Uint8Array) => {
      s.text += typeof d === 'string' ? d : Buffer.from(d).toString('utf8');
      return Promise.resolve();
    },
    event: (d: unknown) => s.write(`data: ${JSON.stringify(d)}\n\n`),
    end: () => Promise.resolve(),
  };
  return s;
}

const chunk = (content: string): string =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
const usage = `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } })}\n\n`;

describe('UsageMeter', () => {
  it("should take the upstream's usage as reported, explicit zeros too", () => {
    expect(usageOf({ prompt_tokens: 0, completion_tokens: 0 })).toEqual({
      prompt: 0,
      completion: 0,
    });
    expect(usageOf({ prompt_tokens: 3 })).toBeUndefined();
    const m = new UsageMeter('gpt-4o');
    m.see({
      choices: [{ message: { content: 'Hello there' } }],
      usage: { prompt_tokens: 0, completion_tokens: 0 },
    });
    expect(m.used(50)).toEqual({ prompt: 0, completion: 0 });
  });

  it('should relay whole events cut anywhere, count the deltas, and drop the usage chunk the client did not ask for', async () => {
    const inner = memorySink();
    const m = new UsageMeter('gpt-4o');
    const sink = m.sink(inner, false);
    sink.open();
    const all = chunk('Hello') + chunk(' world') + usage + 'data: [DONE]\n\n';
    for (let i = 0; i < all.length; i += 7) await sink.write(Buffer.from(all.slice(i, i + 7)));
    await sink.end();
    expect(inner.text).toBe(chunk('Hello') + chunk(' world') + 'data: [DONE]\n\n');
    expect(m.completion).toBe(2);
    expect(m.used(50)).toEqual({ prompt: 11, completion: 7 });
  });

  it('should pass the usage chunk on when the client asked, and count deltas when no usage came', async () => {
    const inner = memorySink();
    const m = new UsageMeter('gpt-4o');
    const sink = m.sink(inner, true);
    sink.open();
    await sink.write(chunk('Hello') + usage);
    expect(inner.text).toBe(chunk('Hello') + usage);
    const bare = new UsageMeter('gpt-4o');
    const s2 = bare.sink(memorySink(), false);
    await s2.write(chunk('Hello') + chunk(' world'));
    expect(bare.used(50)).toEqual({ prompt: 50, completion: 2 });
  });
});
