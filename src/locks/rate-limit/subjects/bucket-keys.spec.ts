import { describe, expect, it } from 'vitest';
import { KeyHasher } from './key-hasher.js';
import { bucketKey, type KeyedRule } from './bucket-keys.js';

const hasher = new KeyHasher(Buffer.from('k'.repeat(32)));

describe(bucketKey.name, () => {
  const ipRule: KeyedRule = { dimension: 'ip', action: 'inference.per-ip', scope: 'service' };
  const at = (value: string, h = hasher, tag = '{prod:rampart}') =>
    bucketKey(tag, ipRule, { value, personal: true }, h);

  it('should give each subject, hasher and tag its own key, the same from its cache as when first built', () => {
    const first = at('198.51.100.7');
    expect(at('198.51.100.7')).toBe(first);
    expect(at('198.51.100.8').key).not.toBe(first.key);
    expect(at('198.51.100.7', new KeyHasher(Buffer.from('j'.repeat(32)))).key).not.toBe(first.key);
    expect(at('198.51.100.7', hasher, '{test:rampart}').key).toBe(
      first.key.replace('{prod:rampart}', '{test:rampart}'),
    );
    expect(at('198.51.100.7').key).toBe(first.key);
  });

  it('should keep giving the right keys past the cache bound', () => {
    const h = new KeyHasher(Buffer.from('b'.repeat(32)));
    const keys = new Map<string, string>();
    for (let i = 0; i < 60_000; i++)
      keys.set(
        `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
        at(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, h).key,
      );
    expect(new Set(keys.values()).size).toBe(60_000);
    for (const [ip, key] of [...keys].filter((_, i) => i % 997 === 0))
      expect(at(ip, h).key).toBe(key);
  });
});
