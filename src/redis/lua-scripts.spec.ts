import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleLuaScript, loadLuaScripts, parseLuaHeader } from './lua-scripts.js';

describe(parseLuaHeader.name, () => {
  it('should read the KEYS / ARGV / Returns contract, with continuation lines', () => {
    const s = parseLuaHeader(
      'x',
      '-- Does x.\n-- KEYS: [1] a\n--   [2] b\n-- ARGV: none\n-- Returns: 1\nreturn 1\n',
    );
    expect(s.keys).toBe('[1] a [2] b');
    expect(s.argv).toBe('none');
    expect(s.returns).toBe('1');
  });

  it('should refuse a script without a contract, naming the file and what is missing', () => {
    expect(() => parseLuaHeader('y', '-- KEYS: none\nreturn 1')).toThrow(
      /lua\/y\.lua: header lacks ARGV, Returns/,
    );
  });

  it('should load every script under lua/ with a complete header', () => {
    const scripts = loadLuaScripts();
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(s.returns.length).toBeGreaterThan(0);
  });
});

describe(assembleLuaScript.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lua-'));
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'lib/a.lua'), '-- a\nlocal A = 1\n');
  writeFileSync(join(dir, 'lib/kind_y.lua'), 'K.y = 2\n');
  writeFileSync(join(dir, 'lib/kind_x.lua'), 'K.x = 1\n');
  const head = '-- Does z.\n-- KEYS: none\n-- ARGV: none\n-- Returns: 1\n';

  it('should put the included library files, globs sorted, between the header and the body', () => {
    const s = assembleLuaScript(
      dir,
      'z',
      `${head}-- Includes: lib/a.lua lib/kind_*.lua\nreturn A\n`,
    );
    expect(s.source).toBe(
      `${head}-- Includes: lib/a.lua lib/kind_*.lua\n-- lua/lib/a.lua\n-- a\nlocal A = 1\n` +
        '-- lua/lib/kind_x.lua\nK.x = 1\n-- lua/lib/kind_y.lua\nK.y = 2\n-- lua/z.lua\nreturn A\n',
    );
    expect(s.returns).toBe('1');
  });

  it('should leave a script without includes as it is, and refuse an include that matches nothing', () => {
    expect(assembleLuaScript(dir, 'z', `${head}return 1`).source).toBe(`${head}return 1`);
    expect(() =>
      assembleLuaScript(dir, 'z', `${head}-- Includes: lib/none_*.lua\nreturn 1`),
    ).toThrow(/lua\/z\.lua: include lib\/none_\*\.lua matches no file/);
  });
});
