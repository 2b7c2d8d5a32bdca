import { readDataFile } from '../../../config/data-file.js';
import type { ClientApp } from './app.types.js';
import { parseAppDefinition } from './app-definition.js';

/**
 * Validates the content of an apps file: `{ apps: [ … ] }` or a bare list.
 * Returns the apps, or every problem found (duplicate ids included).
 */
export function parseApps(
  raw: unknown,
  source: string,
  now: number,
): { apps: ClientApp[]; problems: string[] } {
  const list = Array.isArray(raw)
    ? raw
    : typeof raw === 'object' && raw !== null
      ? (raw as { apps?: unknown }).apps
      : undefined;
  if (!Array.isArray(list))
    return {
      apps: [],
      problems: [`${source}: must hold a list of apps (top-level "apps:" or a list)`],
    };
  const problems: string[] = [];
  const apps: ClientApp[] = [];
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    const r = parseAppDefinition(entry, `${source}: apps[${i}]`, now);
    problems.push(...r.problems);
    if (!r.app) return;
    if (seen.has(r.app.id))
      problems.push(`${source}: apps[${i}].id: "${r.app.id}" is defined twice`);
    seen.add(r.app.id);
    apps.push(r.app);
  });
  return { apps, problems };
}

/** Reads and validates APPS_FILE (JSON when it ends in .json, YAML otherwise). */
export function loadAppsFile(path: string, now: number): { apps: ClientApp[]; problems: string[] } {
  const problems: string[] = [];
  const raw = readDataFile(path, 'APPS_FILE', { add: (m) => problems.push(m) });
  if (problems.length > 0) return { apps: [], problems };
  return parseApps(raw, 'APPS_FILE', now);
}
