import type { InferenceBackend } from '../inference-backend.js';
import type { ModelRoutes } from './model-routes.types.js';

/**
 * Readiness of model aliases: every upstream's own check (`GET <url>/models`)
 * at once; fails when an alias has no upstream answering. Details count
 * upstreams per alias and never name an address.
 */
export async function routesHealth(
  routes: ModelRoutes,
  backends: ReadonlyMap<string, InferenceBackend>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const up = new Map<string, boolean>();
  await Promise.all(
    [...backends].map(([name, b]) =>
      b.health(signal).then(
        () => up.set(name, true),
        () => up.set(name, false),
      ),
    ),
  );
  const models: Record<string, string> = {};
  const down: string[] = [];
  for (const [alias, ups] of routes) {
    const ok = ups.filter((u) => up.get(u.name)).length;
    models[alias] = `${ok}/${ups.length} upstreams answer`;
    if (ok === 0) down.push(alias);
  }
  if (down.length > 0) throw new Error(`no upstream answers for ${down.join(', ')}`);
  return { backend: 'upstream', models };
}
