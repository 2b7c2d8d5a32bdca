import { describe, expect, it } from 'vitest';
import { IdCipher } from './id-cipher.js';

describe(IdCipher.name, () => {
  const a = new IdCipher('a'.repeat(32));
  const b = new IdCipher('b'.repeat(32));

  it('should seal an id without it in clear, open it back, and seal twice differently', () => {
    const s1 = a.seal('987654321012');
    const s2 = a.seal('987654321012');
    expect(s1).not.toContain('987654321012');
    expect(s1).not.toBe(s2);
    expect([a.open(s1), a.open(s2)]).toEqual(['987654321012', '987654321012']);
  });

  it('should refuse a sealed id altered, or opened with another key', () => {
    const s = a.seal('-1009876543215');
    const [v, iv, ct, tag] = s.split('.');
    // The first character carries 6 bits of the first byte (the last one may carry padding bits only).
    const flipped = `${v}.${iv}.${ct!.startsWith('A') ? 'B' : 'A'}${ct!.slice(1)}.${tag}`;
    expect(() => a.open(flipped)).toThrow();
    expect(() => b.open(s)).toThrow();
  });

  it('should give a stable pseudonym per key, without the id', () => {
    expect(a.pseudonym('987654321012')).toBe(a.pseudonym('987654321012'));
    expect(a.pseudonym('987654321012')).not.toBe(b.pseudonym('987654321012'));
    expect(a.pseudonym('987654321012')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('should read an id stored before ids were sealed as is', () => {
    expect(a.open('987654321012')).toBe('987654321012');
  });
});
