/**
 * Imports point down, never up and never in a circle (see README "Layout").
 * Floors, from the ground up:
 *   common, metrics, logging, http → config, redis → health, chain → locks/<lock>
 *   → products (search, inference, telegram, probe, sdk, session-keys) → admin → the top files (app.*.ts, main.ts).
 * A lock imports no other lock, no product and not admin; a product plugs into
 * a lock through a token the lock declares. Spec files are not checked (a test
 * may assemble anything), but they are parsed for nothing else either.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = 'src';
const GROUND = ['common', 'metrics', 'logging', 'http'];
const PRODUCTS = ['search', 'inference', 'telegram', 'probe', 'sdk', 'session-keys'];

/** Folder → the folders it may import (besides itself). `locks` stands for every lock. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  common: [],
  metrics: ['common'],
  logging: ['common'],
  http: ['common', 'metrics', 'logging'],
  config: [...GROUND],
  redis: [...GROUND, 'config'],
  health: [...GROUND, 'config', 'redis'],
  chain: [...GROUND, 'config', 'redis', 'health'],
  lock: [...GROUND, 'config', 'redis', 'health', 'chain'],
  product: [...GROUND, 'config', 'redis', 'health', 'chain', 'locks', ...PRODUCTS],
  admin: [...GROUND, 'config', 'redis', 'health', 'chain', 'locks', ...PRODUCTS],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative imports of a file (value and type, static and dynamic), as source paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/\b(?:import|export)\s[^'";]*?\bfrom\s+'(\.[^']+)'/g),
    ...text.matchAll(/\bimport\s+'(\.[^']+)'/g),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1]!);
  return specs.map((s) => normalize(join(dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** `locks/<name>` for a lock, the first folder for the rest, `top` for files directly in src/. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  if (parts.length === 1) return 'top';
  return parts[0] === 'locks' ? `locks/${parts[1]}` : parts[0]!;
}

function allowed(from: string, to: string): boolean {
  if (from === to || from === 'top') return true;
  const rule = from.startsWith('locks/') ? 'lock' : PRODUCTS.includes(from) ? 'product' : from;
  const may = MAY_IMPORT[rule];
  if (!may) return false;
  return (
    may.includes(to.startsWith('locks/') ? 'locks' : to) &&
    !(rule === 'lock' && to.startsWith('locks/'))
  );
}

function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe('imports', () => {
  it('should point down the floors: no lock imports a product, admin or another lock', () => {
    const up: string[] = [];
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        if (!dep.startsWith(`${SRC}/`)) continue;
        const [a, b] = [folderOf(file), folderOf(dep)];
        if (!allowed(a, b)) up.push(`${file} → ${dep}`);
      }
    }
    expect(up).toEqual([]);
  });

  it('should form no cycle between files (type-only imports included)', () => {
    expect(cycles(graph).map((c) => c.join(' ↔ '))).toEqual([]);
  });

  it('should resolve every relative import to a source file', () => {
    const missing = [...graph].flatMap(([f, deps]) =>
      deps
        .filter((d) => d.startsWith(`${SRC}/`) && !graph.has(d) && !d.endsWith('.json'))
        .map((d) => `${f} → ${d}`),
    );
    expect(missing).toEqual([]);
  });
});
