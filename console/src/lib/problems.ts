/**
 * Places the `problems` of a 400 answer next to the fields they are about.
 * The service writes each problem as `<path>: <message>` (policy changes,
 * e.g. `policies.search.locks.rateLimit.rules[0].capacity: must be …`) or as
 * `<field> <message>` (request bodies, e.g. `tier must match …`).
 */
export interface PlacedProblems {
  /** Field key (`rules.0.capacity`, `tier`) → messages. */
  fields: Record<string, string[]>;
  /** Problems that belong to no known field. */
  other: string[];
}

/** `rules[0].capacity` → `rules.0.capacity`. */
export function fieldKey(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1');
}

/**
 * Sorts problems by field. `prefix` is the path of the edited object
 * (`policies.search.locks.rateLimit`); `fields` are the keys a form shows —
 * a problem is placed on the longest shown key its path starts with.
 */
export function placeProblems(
  problems: readonly string[],
  prefix: string,
  fields: readonly string[],
): PlacedProblems {
  const out: PlacedProblems = { fields: {}, other: [] };
  const shown = [...fields].sort((a, b) => b.length - a.length);
  for (const p of problems) {
    const key = keyOf(p, prefix, shown);
    if (key === undefined) out.other.push(p);
    else (out.fields[key] ??= []).push(messageOf(p));
  }
  return out;
}

function keyOf(problem: string, prefix: string, shown: readonly string[]): string | undefined {
  const colon = problem.indexOf(': ');
  const head = colon > 0 ? fieldKey(problem.slice(0, colon)) : '';
  const path = head.startsWith(`${prefix}.`) ? head.slice(prefix.length + 1) : head;
  if (path) {
    const hit = shown.find((f) => path === f || path.startsWith(`${f}.`));
    if (hit) return hit;
  }
  const word = /^([A-Za-z][\w.]*) /.exec(problem)?.[1];
  return word !== undefined && shown.includes(word) ? word : undefined;
}

function messageOf(problem: string): string {
  const colon = problem.indexOf(': ');
  return colon > 0 && !problem.slice(0, colon).includes(' ') ? problem.slice(colon + 2) : problem;
}
