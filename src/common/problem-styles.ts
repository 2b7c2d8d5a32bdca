import { Injectable } from '@nestjs/common';
import type { ProblemBody } from './problem.exception.js';

/**
 * How a problem is written for the clients of some routes. The default (no
 * style) is the problem+json body itself. A product whose routes imitate
 * another API's error shape (e.g. the OpenAI-compatible inference routes)
 * registers a style for its paths; the one problem filter then sends
 * `body(problem)` instead, with the same status, headers and content type.
 */
export interface ProblemStyle {
  /** Short name, for logs and docs (e.g. `openai`). */
  readonly name: string;
  /** The body to send for `problem` (whose `request_id` is already set). No I/O: it runs on reject paths. */
  body(problem: ProblemBody): Record<string, unknown>;
}

/**
 * Problem styles by request path, registered by products while the app
 * boots (`onModuleInit`). Looked up only when a problem is answered, by the
 * path the client sent: every problem of such a path uses the style, also
 * one raised before routing (an unreadable body, a 413).
 */
@Injectable()
export class ProblemStyles {
  private readonly byPath = new Map<string, ProblemStyle>();

  /**
   * Uses `style` for every problem answered on these paths: exact paths
   * such as `/v1/models` (no parameters; matched without the query, a
   * trailing slash or letter case). A path given a second, different style throws.
   */
  register(paths: readonly string[], style: ProblemStyle): void {
    for (const path of paths) {
      const key = pathKey(path);
      const taken = this.byPath.get(key);
      if (taken && taken !== style)
        throw new Error(`problem style for ${path}: "${taken.name}" is already registered`);
      this.byPath.set(key, style);
    }
  }

  /** The style of a request target (path and optional query as sent), or undefined for plain problem+json. */
  forTarget(target: string | undefined): ProblemStyle | undefined {
    if (this.byPath.size === 0 || target === undefined) return undefined;
    return this.byPath.get(pathKey(target));
  }
}

function pathKey(target: string): string {
  const q = target.indexOf('?');
  let path = q < 0 ? target : target.slice(0, q);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path.toLowerCase();
}
