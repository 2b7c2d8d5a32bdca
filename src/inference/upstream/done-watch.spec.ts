import { describe, expect, it } from 'vitest';
import { DoneWatch } from './done-watch.js';

const read = (...chunks: string[]): boolean => {
  const w = new DoneWatch();
  for (const c of chunks) w.read(Buffer.from(c, 'utf8'));
  return w.done;
};

describe(DoneWatch.name, () => {
  it('should see the stream end at its [DONE] event, even split across chunks', () => {
    expect(read('data: {"choices":[]}\n\n', 'data: [DONE]\n\n')).toBe(true);
    expect(read('data: {"choices":[]}\n\ndata: [DO', 'NE]\r\n\r\n')).toBe(true);
    expect(read('data:[DONE]\n\n')).toBe(true);
  });

  it('should not take a stream cut before the end of its [DONE] event, or with more after it, as whole', () => {
    expect(read('data: {"choices":[]}\n\n')).toBe(false);
    expect(read('data: [DONE]\n')).toBe(false);
    expect(read('data: {"content":"data: [DONE]\\n\\n"}\n\n')).toBe(false);
    expect(read('data: [DONE]\n\n', 'data: {"choices":[]}\n\n')).toBe(false);
  });
});
