import { describe, expect, it } from 'vitest';
import { expiryInstant } from './expiry.js';

describe(expiryInstant.name, () => {
  const now = Date.parse('2030-01-31T12:00:00Z');

  it('should give no end for a permanent change and now + duration for the presets', () => {
    expect(expiryInstant('permanent', now)).toBeUndefined();
    expect(expiryInstant('15m', now)).toBe('2030-01-31T12:15:00.000Z');
  });

  it('should take a picked time, refusing a missing or past one', () => {
    expect(expiryInstant('at', now, '2030-02-01T10:00:00Z')).toBe('2030-02-01T10:00:00.000Z');
    expect(() => expiryInstant('at', now, '')).toThrow(/Pick/);
    expect(() => expiryInstant('at', now, '2030-01-31T11:00:00Z')).toThrow(/passed/);
  });
});
