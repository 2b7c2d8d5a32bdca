/**
 * Floors inside a lock: a lock's page in docs/ declares its parts and the floor of each
 * (a "Floors of `src/locks/<lock>/`" section with a table `| floor | part | files | holds |`),
 * and every import inside the lock (spec files included) must stay in its own part or go
 * down to a part on a lower floor: never up, never sideways to another part of the same floor.
 * Every file of the lock must belong to exactly one part, so a new file has to be placed.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

export interface Part {
  floor: number;
  name: string;
  /** Folders (`core/`) and files (`rate-limit.types.ts`), relative to the lock. */
  paths: string[];
}

/** The floor tables of every docs page: lock folder → its parts. */
export function declaredFloors(docsDir = 'docs'): Map<string, Part[]> {
  const out = new Map<string, Part[]>();
  for (const page of readdirSync(docsDir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(docsDir, page), 'utf8');
    for (const m of text.matchAll(
      /Floors of `(src\/locks\/[a-z-]+)\/`[^\n]*\n([\s\S]*?)(?:\n\n|$)/g,
    )) {
      const parts: Part[] = [];
      for (const row of m[2]!.split('\n')) {
        const cells = row.split('|').map((c) => c.trim());
        if (!/^\d+$/.test(cells[1] ?? '')) continue;
        const paths = [...cells[3]!.matchAll(/`([^`]+)`/g)].map((p) => p[1]!);
        parts.push({ floor: Number(cells[1]), name: cells[2]!, paths });
      }
      out.set(m[1]!, parts);
    }
  }
  return out;
}

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return filesOf(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/\b(?:import|export)\s[^'";]*?\bfrom\s+'(\.[^']+)'/g),
    ...text.matchAll(/\bimport\s+'(\.[^']+)'/g),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
}

/** The part a file of the lock belongs to (its longest matching path), or undefined. */
export function partOf(lock: string, file: string, parts: Part[]): Part | undefined {
  const rel = relative(lock, file);
  let best: { part: Part; len: number } | undefined;
  for (const part of parts)
    for (const p of part.paths) {
      const hit = p.endsWith('/')
        ? rel.startsWith(p)
        : rel === p || rel === p.replace(/\.ts$/, '.spec.ts');
      if (hit && (!best || p.length > best.len)) best = { part, len: p.length };
    }
  return best?.part;
}

/** Imports inside `lock` that do not point down: `file → target (part floor → part floor)`. */
export function upImports(lock: string, parts: Part[]): { unplaced: string[]; up: string[] } {
  const unplaced: string[] = [];
  const up: string[] = [];
  for (const file of filesOf(lock)) {
    const from = partOf(lock, file, parts);
    if (!from) {
      unplaced.push(relative(lock, file));
      continue;
    }
    for (const dep of importsOf(file)) {
      if (!dep.startsWith(`${lock}/`)) continue;
      const to = partOf(lock, dep, parts);
      if (!to || to === from || to.floor < from.floor) continue;
      up.push(
        `${relative(lock, file)} → ${relative(lock, dep)} (${from.name} ${from.floor} → ${to.name} ${to.floor})`,
      );
    }
  }
  return { unplaced, up };
}

const floors = declaredFloors();

describe('lock floors', () => {
  it('should find an import that points up or sideways, and a file no part holds', () => {
    const lock = mkdtempSync(join(tmpdir(), 'floors-'));
    const put = (f: string, text: string): void => {
      mkdirSync(dirname(join(lock, f)), { recursive: true });
      writeFileSync(join(lock, f), text);
    };
    put('core/a.ts', "import { b } from './b.js';\nexport const a = b;");
    put('core/b.ts', "import { s } from '../store/s.js';\nexport const b = s;");
    put('store/s.ts', "import { a } from '../core/a.js';\nexport const s = a;");
    put('risk/r.ts', "import { l } from '../load/l.js';\nexport const r = l;");
    put('load/l.ts', 'export const l = 1;');
    put('stray.ts', 'export const x = 1;');
    const parts: Part[] = [
      { floor: 0, name: 'core', paths: ['core/'] },
      { floor: 1, name: 'store', paths: ['store/'] },
      { floor: 2, name: 'risk', paths: ['risk/'] },
      { floor: 2, name: 'load', paths: ['load/'] },
    ];
    expect(upImports(lock, parts)).toEqual({
      unplaced: ['stray.ts'],
      up: ['core/b.ts → store/s.ts (core 0 → store 1)', 'risk/r.ts → load/l.ts (risk 2 → load 2)'],
    });
  });

  it('should have the rate-limit lock declare its floors', () => {
    expect(floors.get('src/locks/rate-limit')?.length).toBeGreaterThan(5);
  });

  for (const [lock, parts] of floors) {
    it(`should place every file of ${lock} on a floor, and point each import down`, () => {
      expect(upImports(lock, parts)).toEqual({ unplaced: [], up: [] });
    });
  }
});
