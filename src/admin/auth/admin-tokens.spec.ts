import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AdminTokens, bearerToken } from './admin-tokens.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe(AdminTokens.name, () => {
  const tokens = new AdminTokens(
    [
      { id: 'alice', sha256: sha('alice-token-0123456789') },
      { id: 'bob', sha256: sha('bob-token-0123456789') },
    ],
    'env-token-0123456789',
  );

  it('should name the holder of a valid token, from the file or from ADMIN_TOKEN', () => {
    expect(tokens.verify('Bearer alice-token-0123456789')).toBe('alice');
    expect(tokens.verify('bearer bob-token-0123456789')).toBe('bob');
    expect(tokens.verify('Bearer env-token-0123456789')).toBe('env');
  });

  it('should refuse a wrong, missing, truncated or differently-schemed token', () => {
    expect(tokens.verify('Bearer alice-token-012345678')).toBeUndefined();
    expect(tokens.verify(undefined)).toBeUndefined();
    expect(tokens.verify('')).toBeUndefined();
    expect(tokens.verify('Basic YWxpY2U6cHc=')).toBeUndefined();
    expect(tokens.verify('alice-token-0123456789')).toBeUndefined();
    expect(tokens.verify(`Bearer ${'a'.repeat(600)}`)).toBeUndefined();
  });

  it('should say when no credential is configured (the admin API then stays closed)', () => {
    expect(new AdminTokens([]).configured).toBe(false);
    expect(new AdminTokens([]).verify('Bearer anything-at-all-here')).toBeUndefined();
    expect(tokens.configured).toBe(true);
  });
});

describe(bearerToken.name, () => {
  it('should read RFC 6750 tokens only', () => {
    expect(bearerToken('Bearer abc.DEF-ghi_~+/==')).toBe('abc.DEF-ghi_~+/==');
    expect(bearerToken('Bearer two words')).toBeUndefined();
    expect(bearerToken('Bearer tok\u00e9n')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
  });
});
