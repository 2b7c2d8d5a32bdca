import { describe, expect, it } from 'vitest';
import { loadLuaScripts, parseLuaHeader } from './lua-scripts.js';

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
