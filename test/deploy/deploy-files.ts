/**
 * Helpers for the deployment-file checks (no Docker daemon, no cluster):
 * the repository root, the environment variables the service reads, and the
 * GET routes its controllers declare.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;

export const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
    .map((f) => join(dir, f));
}

/**
 * Variables of the graceful drain (issue 18, readiness half, branch proof-runtime) with
 * their defaults: the deployment files set them already; until that code is merged they
 * are read by nobody.
 */
export const DRAIN_VARIABLES = { SHUTDOWN_DELAY_MS: 5_000, SHUTDOWN_TIMEOUT_MS: 10_000 };

/** Every environment variable name the service's code reads. */
export function variablesRead(): Set<string> {
  const names = new Set<string>(Object.keys(DRAIN_VARIABLES));
  for (const f of sourceFiles('src')) {
    const text = read(f);
    for (const re of [
      /\benv\.([A-Z][A-Z0-9_]*)/g,
      /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g,
      /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]*)['"]/g,
    ])
      for (const m of text.matchAll(re)) names.add(m[1]!);
  }
  return names;
}

/** `GET` routes the controllers declare, as full paths (e.g. `/health/ready`). */
export function getRoutes(): Set<string> {
  const routes = new Set<string>();
  for (const f of sourceFiles('src').filter((f) => f.endsWith('.controller.ts'))) {
    const text = read(f);
    const base = /@Controller\(\s*'([^']*)'/.exec(text)?.[1] ?? '';
    for (const m of text.matchAll(/@Get\(\s*(?:'([^']*)')?\s*\)/g))
      routes.add(`/${[base, m[1] ?? ''].filter(Boolean).join('/')}`);
  }
  return routes;
}
