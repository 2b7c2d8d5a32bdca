import { ProblemException } from '../common/problem.exception.js';
import type { Clock } from '../common/clock.js';
import { beforeHandler } from './before-handler.js';
import { effectiveMode, withMode } from './lock-mode.js';
import type { BaseLockContext } from './lock-context.js';
import type { InterceptorLock, Next } from './lock.types.js';
import type { LockStats } from './lock-stats.service.js';
import type { Step } from './guard-refusal.js';

/**
 * Runs the interceptor-stage locks of a policy, each wrapping the next, the handler last, and
 * counts each lock's outcome (see InterceptorLock): `allowed` (or what it passes to `next`)
 * when it calls next, `short_circuited` when it answers itself, `rejected` when it refuses.
 */
export class InterceptorRunner {
  constructor(
    private readonly stats: LockStats,
    private readonly clock: Clock,
  ) {}

  run(
    base: BaseLockContext,
    steps: Step<InterceptorLock>[],
    handler: () => Promise<unknown>,
  ): Promise<unknown> {
    const at = (i: number): Promise<unknown> => {
      if (i >= steps.length) return beforeHandler(base.state, handler);
      const { lock, slice } = steps[i]!;
      const mode = effectiveMode(slice, this.clock.now());
      if (mode === 'off') return at(i + 1);
      let passed = false;
      const next: Next = (outcome = 'allowed') => {
        if (!passed) {
          passed = true;
          this.stats.record(lock.name, base.policyName, outcome);
        }
        return at(i + 1);
      };
      return lock.around(withMode(base, mode), slice, next).then(
        (value) => {
          if (!passed) this.stats.record(lock.name, base.policyName, 'short_circuited');
          return value;
        },
        (err: unknown) => {
          if (!passed && err instanceof ProblemException) {
            const outcome = err.answer ? 'short_circuited' : 'rejected';
            this.stats.record(lock.name, base.policyName, outcome);
          }
          throw err;
        },
      );
    };
    return at(0);
  }
}
