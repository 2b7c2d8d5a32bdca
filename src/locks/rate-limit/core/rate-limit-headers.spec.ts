import { describe, expect, it } from 'vitest';
import { rateLimitField, rateLimitPolicyField, retryAfterSeconds } from './rate-limit-headers.js';

describe('RateLimit fields', () => {
  it('should write the current draft structured fields for a named policy', () => {
    const q = { name: 'search.per-ip', limit: 60, windowS: 6, remaining: 12.7, resetS: 4.2 };
    expect(rateLimitPolicyField(q)).toBe('"search.per-ip";q=60;w=6');
    expect(rateLimitField(q)).toBe('"search.per-ip";r=12;t=5');
  });

  it('should round Retry-After up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(0)).toBe(1);
  });
});
