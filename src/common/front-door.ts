import { Injectable } from '@nestjs/common';
import type { ProblemException } from './problem.exception.js';

/**
 * A check at the front door: the Node request (its request state is reachable with `requestState`; its
 * body is not read yet, nothing is routed) → a refusal to answer at once, or undefined (the request goes
 * on). It must be cheap (it runs for every request) and never throw.
 */
export type FrontDoorCheck = (req: unknown) => ProblemException | undefined;

/**
 * Checks that run first for every request, on both adapters (http-setup.ts): after the request id and the
 * access log are set up, before security headers, CORS, the body and the router. A lock refuses here what
 * it already knows to refuse (a banned address, a bucket known empty), so a flood of such requests costs
 * the least the service can spend on it (docs/rate-limit.md#front-door). The first refusal wins.
 */
@Injectable()
export class FrontDoor {
  private readonly checks: FrontDoorCheck[] = [];

  add(check: FrontDoorCheck): void {
    this.checks.push(check);
  }

  get size(): number {
    return this.checks.length;
  }

  run(req: unknown): ProblemException | undefined {
    for (const c of this.checks) {
      let refused: ProblemException | undefined;
      try {
        refused = c(req);
      } catch {
        // A check that throws refuses nothing: the request takes the usual path, which decides.
      }
      if (refused) return refused;
    }
    return undefined;
  }
}
