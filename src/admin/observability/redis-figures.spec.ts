import { describe, expect, it } from 'vitest';
import { globEscape, infoField, rateLimitKeyPattern } from './redis-figures.js';

describe(rateLimitKeyPattern.name, () => {
  it('should match both key forms of this service and no service whose name only starts the same', () => {
    const pattern = rateLimitKeyPattern('{prod:rampart}');
    expect(pattern).toBe('rl:{prod:rampart[}:]*');
    const re = new RegExp(`^${'rl:\\{prod:rampart[}:]'}.*$`);
    expect(re.test('rl:{prod:rampart}:ip:abc:search.per-ip')).toBe(true);
    expect(re.test('rl:{prod:rampart:ip:abc:search.per-ip}')).toBe(true);
    expect(re.test('rl:{prod:rampart2}:ip:abc:x')).toBe(false);
  });

  it('should escape glob characters of the environment or service name', () => {
    expect(globEscape('a*b?c[d]e\\')).toBe('a\\*b\\?c\\[d\\]e\\\\');
  });
});

describe(infoField.name, () => {
  it('should read a number field of an INFO section, 0 when absent', () => {
    const info = '# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:0\r\n';
    expect(infoField(info, 'used_memory')).toBe(1048576);
    expect(infoField(info, 'maxmemory')).toBe(0);
    expect(infoField(info, 'nothing')).toBe(0);
  });
});
