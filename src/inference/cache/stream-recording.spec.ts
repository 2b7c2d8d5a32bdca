import { describe, expect, it } from 'vitest';
import type { SseSink } from '../inference-backend.js';
import { StreamRecording } from './stream-recording.js';

/** A sink that keeps what it was given. */
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

const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 7, model: 'm' };
const chunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 } })}\n\n`;

describe(StreamRecording.name, () => {
  it('should pass every byte on and assemble a finished stream, cut anywhere, into its chat.completion', async () => {
    const inner = memorySink();
    const rec = new StreamRecording();
    const sink = rec.sink(inner);
    const all =
      chunk({ role: 'assistant', content: '' }) +
      chunk({ content: 'Hi' }) +
      chunk({ content: ' there' }) +
      chunk({}, 'stop') +
      usage +
      'data: [DONE]\n\n';
    for (let i = 0; i < all.length; i += 5) await sink.write(Buffer.from(all.slice(i, i + 5)));
    expect(inner.text).toBe(all);
    expect(rec.completion()).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 7,
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi there' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 },
    });
  });

  it('should give nothing for a stream without its [DONE], or with an error event', async () => {
    const cut = new StreamRecording();
    await cut.sink(memorySink()).write(chunk({ content: 'Hi' }));
    expect(cut.completion()).toBeUndefined();
    const failed = new StreamRecording();
    const sink = failed.sink(memorySink());
    await sink.write(chunk({ content: 'Hi' }));
    await sink.event({ error: { message: 'upstream failed' } });
    await sink.write('data: [DONE]\n\n');
    expect(failed.completion()).toBeUndefined();
  });
});
