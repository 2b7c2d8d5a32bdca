import { describe, expect, it } from 'vitest';
import type { AnyRequest } from '../../../http/http-context.js';
import { checkSecretToken } from './check-secret-token.js';
import { SecretTokenSources, type SecretTokenSource } from './secret-tokens.js';

const source: SecretTokenSource = {
  header: 'x-hook-token',
  secrets: (ctx) =>
    (ctx.req.params?.id ?? '') === 'known' ? ['now_123', 'before_456'] : undefined,
};

function ctx(id: string, value?: string | string[]) {
  const req = {
    headers: value === undefined ? {} : { 'x-hook-token': value },
    method: 'POST',
    url: '/',
    params: { id },
  };
  return { req: req as unknown as AnyRequest, state: {}, route: '/hook/:id' };
}

describe(checkSecretToken.name, () => {
  it('should accept the current and the previous secret', () => {
    expect(checkSecretToken(ctx('known', 'now_123'), source)).toBeUndefined();
    expect(checkSecretToken(ctx('known', 'before_456'), source)).toBeUndefined();
  });

  it('should refuse a wrong, missing or repeated header', () => {
    expect(checkSecretToken(ctx('known', 'nope'), source)?.code).toBe('bad_secret_token');
    expect(checkSecretToken(ctx('known'), source)?.code).toBe('missing_header');
    expect(checkSecretToken(ctx('known', ['now_123', 'now_123']), source)?.code).toBe(
      'bad_secret_token',
    );
  });

  it('should refuse a request whose source has no secret (wrong path), even with a right value', () => {
    expect(checkSecretToken(ctx('other', 'now_123'), source)?.code).toBe('bad_secret_token');
  });
});

describe(SecretTokenSources.name, () => {
  it('should refuse a name registered twice or ill-formed', () => {
    const s = new SecretTokenSources();
    s.register({ secretTokens: { hook: source } });
    expect(s.names()).toEqual(['hook']);
    expect(() => s.register({ secretTokens: { hook: source } })).toThrow(/twice/);
    expect(() => s.register({ secretTokens: { Bad: source } })).toThrow(/must match/);
  });
});
