import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCKING } from '../../vitest.config.js';

/** Every spec file under a folder, relative to the repository root. */
function specs(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.spec.ts'))
    .map((f) => join(dir, f));
}

describe('test isolation', () => {
  // The rings run with isolate: false (vitest.config.ts): a file that replaces a module with
  // vi.mock would change it for the files after it, so each such file is listed in MOCKING.
  it('should run every file that uses vi.mock in unit-mocks, with a fresh module graph', () => {
    const mocking = ['src', 'console/src', 'test']
      .flatMap(specs)
      .filter((f) => /\bvi\.(mock|doMock)\(/.test(readFileSync(f, 'utf8')))
      .filter((f) => f !== 'test/architecture/test-isolation.spec.ts');
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.sort()).toEqual([...MOCKING].sort());
  });
});
