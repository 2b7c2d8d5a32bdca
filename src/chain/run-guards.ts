import { ProblemException } from '../common/problem.exception.js';
import type { Clock } from '../common/clock.js';
import type { LockMode } from '../config/policy.types.js';
import { RAISE, type Step, after, refusal, thrown } from './guard-refusal.js';
import { effectiveMode, withMode } from './lock-mode.js';
import type { BaseLockContext } from './lock-context.js';
import type { GuardLock, GuardResult } from './lock.types.js';
import type { LockStats } from './lock-stats.service.js';

type Mode = Exclude<LockMode, 'off'>;

/**
 * Runs the guard-stage locks of a policy in order and raises the first enforced rejection.
 * Waits only on a lock that answers with a promise (a lock that decides at once costs no
 * microtask). A lock may leave a claim for a later guard's store call (`state.claimHandoff`,
 * one round trip for both): the claim is settled by its owner right after the guard that
 * takes it ran, or before the first guard that does not take it, so every effect happens in
 * the order separate calls would give; the owner's outcome is counted when it is settled.
 */
export class GuardRunner {
  constructor(
    private readonly stats: LockStats,
    private readonly clock: Clock,
  ) {}

  /**
   * A refusal decided without waiting is returned (the guard throws it: one throw, right below Nest,
   * instead of one unwinding through the chain); one decided later rejects the promise.
   */
  run(base: BaseLockContext, steps: Step<GuardLock>[]): GuardResult {
    return this.from(base, steps, 0, undefined);
  }

  private from(
    base: BaseLockContext,
    steps: Step<GuardLock>[],
    start: number,
    deferred: ProblemException | undefined,
  ): GuardResult {
    for (let i = start; i < steps.length; i++) {
      const step = steps[i]!;
      const mode = effectiveMode(step.slice, this.clock.now());
      if (mode === 'off') continue;
      let result: GuardResult;
      try {
        result = step.lock.check(withMode(base, mode), step.slice);
      } catch (err) {
        if (!(err instanceof ProblemException)) throw err; // a failure, not a refusal: never counted
        result = err;
      }
      if (result instanceof ProblemException) {
        // Returned or thrown: the same refusal (a returned one costs one throw fewer, GuardLock.check).
        const r = refusal(this.stats, base, step, mode, result, deferred);
        if (r === RAISE) return result;
        deferred = r;
        continue;
      }
      if (base.state.claimHandoff?.owner === step.lock.name && result === undefined)
        return this.handedOff(base, steps, i + 1, deferred, step);
      if (result !== undefined && typeof result.then === 'function') {
        return result.then(
          () => {
            this.stats.record(step.lock.name, base.policyName, 'allowed');
            return thrown(this.from(base, steps, i + 1, deferred));
          },
          (err: unknown) =>
            thrown(this.from(base, steps, i + 1, this.refused(base, step, mode, err, deferred))),
        );
      }
      this.stats.record(step.lock.name, base.policyName, 'allowed');
    }
    return deferred;
  }

  /**
   * The later guards, with `owner`'s claim pending until a guard took it or one will not. Not an async
   * function: waits only where something is pending (a settle or a check that answers with a promise).
   */
  private handedOff(
    base: BaseLockContext,
    steps: Step<GuardLock>[],
    start: number,
    deferred: ProblemException | undefined,
    owner: Step<GuardLock>,
  ): void | Promise<void> {
    for (let i = start; i < steps.length; i++) {
      const step = steps[i]!;
      const mode = effectiveMode(step.slice, this.clock.now());
      if (mode === 'off') continue;
      const ctx = withMode(base, mode);
      // A guard that does not take the claim runs after it was settled (as a separate call would).
      if (step.lock.takesClaim?.(ctx, step.slice) !== true)
        return after(this.settle(base, owner), () => thrown(this.from(base, steps, i, deferred)));
      const failed = (err: unknown): void | Promise<void> =>
        after(this.settle(base, owner), () =>
          thrown(this.from(base, steps, i + 1, this.refused(base, step, mode, err, deferred))),
        );
      const took = (): void | Promise<void> =>
        // The usual case (the claim was made in this guard's script): settled without a wait.
        after(this.settle(base, owner), () => {
          this.stats.record(step.lock.name, base.policyName, 'allowed');
          return thrown(this.from(base, steps, i + 1, deferred));
        });
      let r: GuardResult;
      try {
        r = step.lock.check(ctx, step.slice);
      } catch (err) {
        return failed(err);
      }
      if (r instanceof ProblemException) return failed(r);
      return r === undefined ? took() : r.then(took, failed);
    }
    return after(this.settle(base, owner), () => {
      if (deferred) throw deferred;
    });
  }

  /**
   * Settles `owner`'s handed-off claim and counts it allowed, or raises its refusal: at once when
   * the claim is known already (no promise), else when its own store call answered.
   */
  private settle(base: BaseLockContext, owner: Step<GuardLock>): void | Promise<void> {
    let r: void | Promise<void> = undefined;
    try {
      r = base.state.claimHandoff!.settle();
    } catch (err) {
      // The owner hands a claim off only in enforce mode without `onFailure: defer`: this throws.
      this.refused(base, owner, 'enforce', err, undefined);
    }
    if (r === undefined) return this.stats.record(owner.lock.name, base.policyName, 'allowed');
    return r.then(
      () => this.stats.record(owner.lock.name, base.policyName, 'allowed'),
      (err: unknown) => void this.refused(base, owner, 'enforce', err, undefined),
    );
  }

  /** `refusal`, with the refusal to raise now thrown (where the chain already waits on a promise). */
  private refused(
    base: BaseLockContext,
    step: Step<GuardLock>,
    mode: Mode,
    err: unknown,
    deferred: ProblemException | undefined,
  ): ProblemException | undefined {
    const r = refusal(this.stats, base, step, mode, err, deferred);
    if (r === RAISE) throw err;
    return r;
  }
}
