import { describe, expect, it } from 'vitest';
import { KeyHasher } from './key-hasher.js';

describe(KeyHasher.name, () => {
  it('should put personal subjects in keys only as a keyed hash', () => {
    const h1 = new KeyHasher(Buffer.from('one-secret-one-secret'));
    const h2 = new KeyHasher(Buffer.from('two-secret-two-secret'));
    const ip = { value: '203.0.113.7', personal: true };
    expect(h1.part('ip', ip)).not.toContain('203');
    expect(h1.part('ip', ip)).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(h1.part('ip', ip)).toBe(h1.part('ip', ip));
    expect(h1.part('ip', ip)).not.toBe(h2.part('ip', ip));
  });

  it('should escape other subjects so they cannot break the key schema', () => {
    const h = new KeyHasher(Buffer.from('x'.repeat(16)));
    expect(h.part('app', { value: 'shop-1', personal: false })).toBe('shop-1');
    expect(h.part('command', { value: '/start:{x}', personal: false })).not.toMatch(/[:{}]/);
  });
});
