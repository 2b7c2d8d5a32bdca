import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../common/paths.js';
import { ALGORITHMS, RULE_KINDS, bucketTtlMs, decideOne, kindOfAlgorithm } from './rule-kinds.js';

const lib = join(projectRoot(), 'lua', 'lib');

describe('RULE_KINDS', () => {
  it('should have each kind once, with its Lua twin in lua/lib/kind_<name>.lua, and no Lua kind without a table entry', () => {
    const codes = RULE_KINDS.map((k) => k.code);
    expect(new Set(codes).size).toBe(codes.length);
    const lua = readdirSync(lib)
      .filter((f) => /^kind_[a-z0-9_]+\.lua$/.test(f))
      .flatMap((f) => [...readFileSync(join(lib, f), 'utf8').matchAll(/^KINDS\.([a-z]) = \{/gm)])
      .map((m) => m[1]);
    expect(lua.sort()).toEqual([...codes].sort());
    for (const k of RULE_KINDS) {
      const file = readdirSync(lib).find((f) =>
        readFileSync(join(lib, f), 'utf8').includes(`KINDS.${k.code} = {`),
      );
      const text = readFileSync(join(lib, file!), 'utf8');
      // The same storage on both sides: a string (no fields) or the same hash fields.
      const fields = /fields = \{ ([^}]*) \}/.exec(text)?.[1]?.match(/'([a-z]+)'/g) ?? [];
      expect(fields.map((f) => f.slice(1, -1))).toEqual([...k.fields]);
      expect(/scales = (true|false)/.exec(text)?.[1]).toBe(String(k.scalesInterval));
    }
  });

  it('should name the policy algorithms, GCRA first and the default', () => {
    expect(ALGORITHMS).toEqual(['gcra', 'token-bucket', 'concurrency', 'tokens']);
    expect(kindOfAlgorithm(undefined).code).toBe('g');
    expect(kindOfAlgorithm('token-bucket').code).toBe('t');
  });

  it('should scale a window by its count only, and the others by capacity and interval', () => {
    const b = { key: 'k', cost: 1, shadow: false, soft: false, degradable: false, group: '' };
    const g = decideOne({ ...b, kind: 'g', capacity: 4, intervalUs: 1e6 }, undefined, 0.5, 0);
    expect(g.o).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    const f = decideOne({ ...b, kind: 'f', capacity: 4, intervalUs: 1e6 }, undefined, 0.5, 0);
    expect(f.value).toEqual({ count: 1, expiresAtUs: 1e6 });
    expect(bucketTtlMs({ kind: 'f', capacity: 4, intervalUs: 1e6 })).toBe(2_000);
    expect(bucketTtlMs({ kind: 't', capacity: 4, intervalUs: 1e6 })).toBe(5_000);
    expect(() =>
      decideOne({ ...b, kind: 'q', capacity: 1, intervalUs: 1 }, undefined, 1, 0),
    ).toThrow(/no rule kind "q"/);
  });
});
