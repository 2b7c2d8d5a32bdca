import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  completionKey,
  isDeterministic,
  validChatRequest,
} from './completion-key.js';

const body = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hello' }],
  temperature: 0,
};
const key = (b: object): string => completionKey(validChatRequest(b)!);

describe('completion key', () => {
  it('should read temperature 0 or an integer seed as deterministic, nothing else', () => {
    expect(isDeterministic({ temperature: 0 })).toBe(true);
    expect(isDeterministic({ temperature: 0.7, seed: 3 })).toBe(true);
    expect(isDeterministic({ temperature: 0.7 })).toBe(false);
    expect(isDeterministic({})).toBe(false);
    expect(isDeterministic({ temperature: '0', seed: 1.5 })).toBe(false);
    expect(isDeterministic(null)).toBe(false);
  });

  it('should sort keys and leave undefined members out of the canonical JSON', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: 'x' }] })).toBe('{"a":[{"c":"x"}],"b":1}');
  });

  it('should key the fields that change the answer, not stream, stream_options, user or unknown fields', () => {
    const k = key(body);
    expect(key({ ...body, stream: true, stream_options: { include_usage: true } })).toBe(k);
    expect(key({ user: 'u-2', ...body, extra: 'dropped' })).toBe(k);
    // max_tokens' default is part of the request the route sees.
    expect(key({ ...body, max_tokens: 256 })).toBe(k);
    expect(key({ ...body, max_tokens: 255 })).not.toBe(k);
    expect(key({ ...body, model: 'gpt-4o' })).not.toBe(k);
    expect(key({ ...body, messages: [{ role: 'user', content: 'Hello!' }] })).not.toBe(k);
    expect(key({ ...body, stop: ['x'] })).not.toBe(k);
    expect(k).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('should refuse what the route would refuse', () => {
    expect(validChatRequest({ ...body, messages: [] })).toBeUndefined();
    expect(validChatRequest({ ...body, temperature: 3 })).toBeUndefined();
    expect(validChatRequest([body])).toBeUndefined();
  });
});
