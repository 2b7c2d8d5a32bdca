import { describe, expect, it } from 'vitest';
import { MAX_TOKENIZED_CHARS, TokenCounter, encodingOf, promptTokens } from './token-count.js';

describe('token counts', () => {
  it('should pick o200k for gpt-4o, 4.1 and the o-series, cl100k for gpt-4 and 3.5, o200k plus the factor otherwise', () => {
    expect(encodingOf('gpt-4o-mini')).toEqual({ encoding: 'o200k_base', exact: true });
    expect(encodingOf('gpt-4.1-nano')).toEqual({ encoding: 'o200k_base', exact: true });
    expect(encodingOf('o3-mini')).toEqual({ encoding: 'o200k_base', exact: true });
    expect(encodingOf('gpt-4-turbo')).toEqual({ encoding: 'cl100k_base', exact: true });
    expect(encodingOf('gpt-3.5-turbo')).toEqual({ encoding: 'cl100k_base', exact: true });
    expect(encodingOf('llama-3.1-70b')).toEqual({ encoding: 'o200k_base', exact: false });
  });

  it("should count a chat prompt as OpenAI does: the encoding's tokens plus 4 per message and 3 for the reply", () => {
    const messages = [{ role: 'user', content: 'Hello, how are you doing today?' }];
    // o200k: "Hello, how are you doing today?" = 8 tokens, "user" = 1.
    expect(promptTokens('gpt-4o', messages, 1.5)).toBe(3 + 4 + 1 + 8);
    // A model whose encoding is a guess: × the safety factor, rounded up.
    expect(promptTokens('mistral-large', messages, 1.5)).toBe(Math.ceil(16 * 1.5));
  });

  it('should bound hostile text: long runs cut into pieces (never fewer tokens), the rest counted as UTF-8 bytes', () => {
    const whole = new TokenCounter('o200k_base', 1e6).count('word '.repeat(200));
    expect(new TokenCounter('o200k_base').count('word '.repeat(200))).toBe(whole);
    const run = 'x'.repeat(4096);
    const counted = new TokenCounter('o200k_base').count(run);
    expect(counted).toBeGreaterThanOrEqual(4096 / 8);
    expect(counted).toBeLessThanOrEqual(4096);
    const c = new TokenCounter('o200k_base');
    c.count('a'.repeat(MAX_TOKENIZED_CHARS - 10));
    // Past the budget: the UTF-8 byte length, an upper bound of any byte-level BPE count.
    expect(c.count('漢字'.repeat(100))).toBe(600);
  });
});
