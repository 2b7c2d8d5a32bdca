import { describe, expect, it } from 'vitest';
import { diffValues, masked } from './audit-diff.js';

describe(diffValues.name, () => {
  it('should list leaf changes as dotted paths, with from and to', () => {
    const before = {
      search: { locks: { rateLimit: { mode: 'enforce', rules: [1] } } },
      gone: { x: 1 },
    };
    const after = {
      search: { locks: { rateLimit: { mode: 'shadow', rules: [1, 2] } } },
      added: true,
    };
    expect(diffValues(before, after, 'policies')).toEqual([
      { path: 'policies.search.locks.rateLimit.mode', from: 'enforce', to: 'shadow' },
      { path: 'policies.search.locks.rateLimit.rules', from: [1], to: [1, 2] },
      { path: 'policies.gone', from: { x: 1 } },
      { path: 'policies.added', to: true },
    ]);
  });

  it('should never write a value that sits under a secret-looking key', () => {
    const changes = diffValues(
      { app: { secret: 'old-s3cret' } },
      { app: { secret: 'new-s3cret', apiKey: { value: 'k3y' } }, list: [{ password: 'pw' }] },
    );
    const text = JSON.stringify(changes);
    for (const s of ['old-s3cret', 'new-s3cret', 'k3y', '"pw"']) expect(text).not.toContain(s);
    expect(changes.map((c) => c.path)).toEqual(['app.secret', 'app.apiKey', 'list']);
  });

  it('should keep token counts (not secrets) readable', () => {
    expect(masked({ maxTokens: 100, password: 'x' })).toEqual({ maxTokens: 100, password: '***' });
  });

  it('should cap a huge diff and say how much was left out', () => {
    const a = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i]));
    const changes = diffValues({}, a);
    expect(changes).toHaveLength(101);
    expect(changes[100]!.to).toBe('50 more changes not listed');
  });
});
