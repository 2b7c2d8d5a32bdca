import { describe, expect, it } from 'vitest';
import { KeyHasher, PART_MEMO_MAX } from './key-hasher.js';

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

  it('should give a scoped subject its own part: per scope, and never one of another scope and value', () => {
    const h = new KeyHasher(Buffer.from('s'.repeat(32)));
    const user = (value: string, scope?: string) =>
      h.part('user', { value, personal: true, ...(scope !== undefined ? { scope } : {}) });
    const parts = [user('user-42'), user('user-42', 'shop'), user('user-42', 'blog')];
    expect(new Set(parts).size).toBe(3);
    expect(user('b\u0000c', 'a')).not.toBe(user('c', 'a\u0000b'));
    expect(user('42', 'shop')).toBe(user('42', 'shop'));
    expect(h.part('command', { value: '/start', personal: false, scope: 'bot-1' })).toBe(
      'bot-1~%2Fstart'.replace('%2F', '/'),
    );
  });

  it('should hash a repeated personal subject once, and remember a bounded number of them', () => {
    const h = new KeyHasher(Buffer.from('m'.repeat(32)));
    const ip = (v: string) => h.part('ip', { value: v, personal: true });
    const first = ip('198.51.100.1');
    expect(h.remembered).toBe(1);
    expect(ip('198.51.100.1')).toBe(first);
    expect(h.part('ip', { value: 'shop', personal: false })).toBe('shop');
    expect(h.remembered).toBe(1);
    // A scoped subject of the same value is another input: its own part, never the unscoped one's.
    expect(h.part('ip', { value: '198.51.100.1', personal: true, scope: 'app-b' })).not.toBe(first);
    for (let i = 0; i < PART_MEMO_MAX + 10; i++) ip(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    expect(h.remembered).toBeLessThanOrEqual(PART_MEMO_MAX);
    // Remembered or not, the part is the same keyed hash.
    expect(ip('198.51.100.1')).toBe(first);
    expect(
      new KeyHasher(Buffer.from('m'.repeat(32))).part('ip', {
        value: '198.51.100.1',
        personal: true,
      }),
    ).toBe(first);
  });
});
