import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.error.js';
import { parseAdminTokens } from './admin-tokens-file.js';
import { loadAppConfig } from '../app.config.js';
import { printableConfig } from './mask.js';

const HASH = 'a'.repeat(64);

function problemsOf(raw: unknown): string[] {
  const problems: string[] = [];
  parseAdminTokens(raw, { add: (m) => problems.push(m) });
  return problems;
}

describe(parseAdminTokens.name, () => {
  it('should accept a bare list and a `tokens:` map, lower-casing the hashes', () => {
    expect(
      parseAdminTokens([{ id: 'alice', sha256: HASH.toUpperCase() }], { add: () => undefined }),
    ).toEqual([{ id: 'alice', sha256: HASH }]);
    expect(
      parseAdminTokens({ tokens: [{ id: 'bob', sha256: HASH }] }, { add: () => undefined }),
    ).toEqual([{ id: 'bob', sha256: HASH }]);
  });

  it('should list every problem: bad id, duplicate id, bad hash, unknown field, empty file', () => {
    const problems = problemsOf([
      { id: 'ok', sha256: HASH },
      { id: 'ok', sha256: HASH },
      { id: 'bad id', sha256: HASH },
      { id: 'short', sha256: 'abc' },
      { id: 'extra', sha256: HASH, token: 'plain' },
    ]);
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/tokens\[1\]\.id "ok" is used twice/);
    expect(problems.join('\n')).toMatch(/tokens\[2\]\.id/);
    expect(problems.join('\n')).toMatch(/tokens\[3\]\.sha256/);
    expect(problems.join('\n')).toMatch(/tokens\[4\]\.token: unknown field/);
    expect(problemsOf([])).toHaveLength(1);
    expect(problemsOf('nope')).toHaveLength(1);
  });

  it('should load ADMIN_TOKENS_FILE through loadConfig, reserve the id `env`, and mask the hashes when printed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rampart-admin-'));
    const file = join(dir, 'tokens.yaml');
    writeFileSync(file, `- id: alice\n  sha256: ${HASH}\n`);
    const c = loadAppConfig({ ADMIN_TOKENS_FILE: file });
    expect(c.adminTokens).toEqual([{ id: 'alice', sha256: HASH }]);
    expect(JSON.stringify(printableConfig(c))).not.toContain(HASH);

    writeFileSync(file, `- id: env\n  sha256: ${HASH}\n`);
    expect(() => loadAppConfig({ ADMIN_TOKENS_FILE: file, ADMIN_TOKEN: 'x'.repeat(20) })).toThrow(
      ConfigError,
    );
    expect(() => loadAppConfig({ ADMIN_TOKENS_FILE: join(dir, 'missing.json') })).toThrow(
      /ADMIN_TOKENS_FILE .* cannot be read/,
    );
  });
});
