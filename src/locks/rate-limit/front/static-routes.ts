import type { RouteInfo } from '../../../chain/route-registry.service.js';

/** A protected route reachable without routing: its template is its path (no parameter). */
export interface StaticRoute {
  template: string;
  policy: string;
}

/**
 * The protected routes whose path has no parameter, by `METHOD path` (a GET route answers HEAD too), so the
 * front door knows a request's policy before the router ran. Both adapters route case-sensitively and
 * without a trailing-slash match (http-adapters.ts): the path as sent, without its query, is the key; a path
 * that is not exactly a template (or has parameters) is not known here and takes the usual way.
 */
export class StaticRoutes {
  private readonly byKey = new Map<string, StaticRoute>();

  constructor(routes: readonly RouteInfo[]) {
    for (const r of routes) {
      if (r.policy === undefined || /[:*(]/.test(r.template)) continue;
      const route = { template: r.template, policy: r.policy };
      this.byKey.set(`${r.method} ${r.template}`, route);
      if (r.method === 'GET') this.byKey.set(`HEAD ${r.template}`, route);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The route of a request line (`target`: path and query as sent), if it is a static one. */
  find(method: string | undefined, target: string | undefined): StaticRoute | undefined {
    if (method === undefined || target === undefined) return undefined;
    const q = target.indexOf('?');
    return this.byKey.get(`${method} ${q < 0 ? target : target.slice(0, q)}`);
  }
}
