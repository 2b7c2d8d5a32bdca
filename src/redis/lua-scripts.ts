import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../common/paths.js';

/** One Lua script from `lua/`, with the contract its header declares. */
export interface LuaScript {
  /** File name without `.lua`, e.g. `ratelimit_decide`; also the ioredis command name. */
  name: string;
  source: string;
  keys: string;
  argv: string;
  returns: string;
}

/**
 * Parses the header of a script: comment lines `-- KEYS: …`, `-- ARGV: …`
 * and `-- Returns: …` (each may continue on following `--` lines).
 * Throws when one is missing: a script without a contract is not loaded.
 */
export function parseLuaHeader(name: string, source: string): LuaScript {
  const fields: Record<string, string[]> = {};
  let current: string | undefined;
  for (const line of source.split('\n')) {
    const m = /^--\s?(.*)$/.exec(line);
    if (!m) break;
    const text = m[1]!;
    const field = /^(KEYS|ARGV|Returns):\s*(.*)$/i.exec(text);
    if (field) {
      current = field[1]!.toLowerCase();
      fields[current] = [field[2]!];
    } else if (current && text.trim() !== '') {
      fields[current]!.push(text.trim());
    }
  }
  const missing = ['keys', 'argv', 'returns'].filter((f) => !fields[f]);
  if (missing.length > 0)
    throw new Error(
      `lua/${name}.lua: header lacks ${missing.map((f) => (f === 'returns' ? 'Returns' : f.toUpperCase())).join(', ')}`,
    );
  return {
    name,
    source,
    keys: fields.keys!.join(' '),
    argv: fields.argv!.join(' '),
    returns: fields.returns!.join(' '),
  };
}

/** Every script under `lua/`, read once. */
export function loadLuaScripts(dir = join(projectRoot(), 'lua')): LuaScript[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((f) => parseLuaHeader(f.slice(0, -4), readFileSync(join(dir, f), 'utf8')));
}
