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
 * and `-- Returns: …` (each may continue on following `--` lines), and the
 * optional `-- Includes: lib/a.lua lib/kind_*.lua`. Throws when one of the
 * three is missing: a script without a contract is not loaded.
 */
export function parseLuaHeader(
  name: string,
  source: string,
): LuaScript & { includes: string[]; headerLines: number } {
  const fields: Record<string, string[]> = {};
  let current: string | undefined;
  const lines = source.split('\n');
  let end = 0;
  for (; end < lines.length; end++) {
    const m = /^--\s?(.*)$/.exec(lines[end]!);
    if (!m) break;
    const text = m[1]!;
    const field = /^(KEYS|ARGV|Returns|Includes):\s*(.*)$/i.exec(text);
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
    includes: (fields.includes ?? []).join(' ').split(/\s+/).filter(Boolean),
    headerLines: end,
  };
}

/**
 * The library files an include names, in order: `lib/x.lua`, or `lib/kind_*.lua` for every
 * matching file, sorted. A name that matches nothing stops the load.
 */
function expand(dir: string, script: string, include: string): string[] {
  const slash = include.lastIndexOf('/');
  const folder = include.slice(0, slash + 1);
  const pattern = include.slice(slash + 1);
  if (!pattern.includes('*')) return [include];
  const re = new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[a-z0-9_]*')}$`);
  const found = readdirSync(join(dir, folder))
    .filter((f) => re.test(f))
    .sort()
    .map((f) => folder + f);
  if (found.length === 0) throw new Error(`lua/${script}.lua: include ${include} matches no file`);
  return found;
}

/**
 * One script as Redis runs it: its header, then each included library file (Redis
 * scripts cannot load one another, so shared code is put in front of the body), then
 * its body. The SHA that EVALSHA uses is that of this whole source.
 */
export function assembleLuaScript(dir: string, name: string, text: string): LuaScript {
  const { includes, headerLines, ...script } = parseLuaHeader(name, text);
  if (includes.length === 0) return script;
  const lines = text.split('\n');
  const libs = includes
    .flatMap((i) => expand(dir, name, i))
    .map((f) => `-- lua/${f}\n${readFileSync(join(dir, f), 'utf8').trimEnd()}`);
  const body = [`-- lua/${name}.lua`, ...lines.slice(headerLines)];
  return { ...script, source: [...lines.slice(0, headerLines), ...libs, ...body].join('\n') };
}

/** Every script under `lua/` (library files under `lua/lib/` are put into the scripts that include them). */
export function loadLuaScripts(dir = join(projectRoot(), 'lua')): LuaScript[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((f) => assembleLuaScript(dir, f.slice(0, -4), readFileSync(join(dir, f), 'utf8')));
}
