import { describe, expect, it } from 'vitest';
import { diffJson } from './diff.js';

describe(diffJson.name, () => {
  it('should list changed, added and removed leaves with their paths', () => {
    const a = {
      search: { locks: { rateLimit: { mode: 'enforce', rules: [{ capacity: 60 }] } } },
      old: 1,
    };
    const b = {
      search: {
        locks: { rateLimit: { mode: 'shadow', rules: [{ capacity: 60 }, { capacity: 5 }] } },
      },
      fresh: true,
    };
    expect(diffJson(a, b)).toEqual([
      { path: 'fresh', to: true },
      { path: 'old', from: 1 },
      { path: 'search.locks.rateLimit.mode', from: 'enforce', to: 'shadow' },
      { path: 'search.locks.rateLimit.rules.1', to: { capacity: 5 } },
    ]);
  });

  it('should find nothing between equal values', () => {
    expect(diffJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
  });
});
