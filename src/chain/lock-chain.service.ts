import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { ConfigError } from '../config/config.error.js';
import { InjectConfig } from '../config/config.module.js';
import type { RampartConfig } from '../config/config.types.js';
import { ProblemException } from '../common/problem.exception.js';
import { LOCK_NAMES, LOCK_ORDER, LockName, isLockName } from './lock-order.js';
import type { BaseLockContext } from './lock-context.js';
import type { GuardLock, InterceptorLock, Lock, Next } from './lock.types.js';
import { LOCK_MODES, LockMode, LockSlice, PolicySet, RoutePolicy } from '../config/policy.types.js';
import { LockStats } from './lock-stats.service.js';
import { beforeHandler } from './before-handler.js';
import { GuardRunner, Step, effectiveMode, withMode } from './run-guards.js';

export { effectiveMode } from './run-guards.js';

interface CompiledPolicy {
  policy: RoutePolicy;
  guards: Step<GuardLock>[];
  interceptors: Step<InterceptorLock>[];
}

export type PolicyListener = (set: PolicySet) => void;

/**
 * The responsibility chain: owns the registered locks (in LOCK_ORDER) and
 * the versioned set of route policies, and runs the locks a policy turns on.
 */
@Injectable()
export class LockChain implements OnApplicationBootstrap {
  private readonly logger = new Logger(LockChain.name);
  private readonly locks = new Map<LockName, Lock>();
  private set: PolicySet;
  private compiled = new Map<string, CompiledPolicy>();
  private readonly listeners: PolicyListener[] = [];
  private required = new Set<string>();
  private readonly guards: GuardRunner;

  constructor(
    @InjectConfig() config: RampartConfig,
    readonly stats: LockStats,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.guards = new GuardRunner(stats, clock);
    this.set = {
      version: 1,
      updatedAt: new Date(clock.now()).toISOString(),
      policies: structuredClone(config.policies),
    };
  }

  /** Called by each lock module at init: `chain.register(this.lock)`. */
  register(lock: Lock): void {
    const entry = LOCK_ORDER.find((l) => l.name === lock.name);
    if (!entry)
      throw new Error(`LockChain: unknown lock "${lock.name}" (known: ${LOCK_NAMES.join(', ')})`);
    if (entry.stage !== lock.stage)
      throw new Error(`LockChain: lock "${lock.name}" must be a ${entry.stage}, got ${lock.stage}`);
    if (this.locks.has(lock.name))
      throw new Error(`LockChain: lock "${lock.name}" registered twice`);
    this.locks.set(lock.name, lock);
    this.compiled.clear();
  }

  /** Names of the locks that are installed, in chain order. */
  installed(): LockName[] {
    return LOCK_NAMES.filter((n) => this.locks.has(n));
  }

  lock(name: LockName): Lock | undefined {
    return this.locks.get(name);
  }

  onApplicationBootstrap(): void {
    const problems = this.validate(this.set.policies);
    if (problems.length > 0) throw new ConfigError(problems);
    this.logger.log(
      `lock chain: ${LOCK_NAMES.map((n) => `${n}${this.locks.has(n) ? '' : ' (not installed)'}`).join(' → ')}`,
    );
    this.notify();
  }

  /** The active policy set (treat as read-only). */
  current(): PolicySet {
    return this.set;
  }

  policy(name: string): RoutePolicy | undefined {
    return this.set.policies[name];
  }

  /** Policies that routes use (`@Protect`): a change may not remove them. */
  requirePolicies(names: Set<string>): void {
    this.required = names;
  }

  /** Every problem with a candidate policy set; empty = valid. */
  validate(policies: Record<string, RoutePolicy>): string[] {
    const problems: string[] = [];
    for (const name of this.required) {
      if (!policies[name])
        problems.push(`policies.${name}: is used by a route and cannot be removed`);
    }
    for (const [name, policy] of Object.entries(policies)) {
      if (
        typeof policy !== 'object' ||
        policy === null ||
        typeof policy.locks !== 'object' ||
        policy.locks === null
      ) {
        problems.push(`policies.${name}: must have a "locks" map`);
        continue;
      }
      for (const [lockName, slice] of Object.entries(policy.locks)) {
        const path = `policies.${name}.locks.${lockName}`;
        if (!isLockName(lockName)) {
          problems.push(`${path}: unknown lock (known: ${LOCK_NAMES.join(', ')})`);
          continue;
        }
        if (!LOCK_MODES.includes(slice.mode)) {
          problems.push(`${path}.mode: must be one of ${LOCK_MODES.join(', ')}`);
          continue;
        }
        problems.push(...validateOverride(slice, path));
        const lock = this.locks.get(lockName);
        if (!lock) {
          const overrideMode = (slice.override as { mode?: string } | undefined)?.mode;
          if (slice.mode !== 'off' || (overrideMode !== undefined && overrideMode !== 'off')) {
            problems.push(
              `${path}: lock "${lockName}" is not installed, so its mode must be "off"`,
            );
          }
          continue;
        }
        problems.push(...lock.validateSlice(slice, path));
      }
    }
    if (problems.length > 0) return problems;
    for (const lock of this.locks.values())
      problems.push(...(lock.validatePolicies?.(policies) ?? []));
    return problems;
  }

  /**
   * Replaces the whole policy set (admin API, sync from other instances).
   * Validates first; on any problem nothing changes and the problems are thrown.
   */
  replace(
    policies: Record<string, RoutePolicy>,
    version: number,
    updatedAt = new Date(this.clock.now()).toISOString(),
  ): PolicySet {
    const problems = this.validate(policies);
    if (problems.length > 0) {
      throw new ProblemException(400, 'invalid_policy', 'Policy change rejected', {
        problems,
        detail: problems.join('; '),
      });
    }
    this.set = { version, updatedAt, policies: structuredClone(policies) };
    this.compiled.clear();
    this.notify();
    return this.set;
  }

  onChange(listener: PolicyListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  private notify(): void {
    for (const lock of this.locks.values()) lock.onPolicies?.(this.set.policies, this.set.version);
    for (const l of this.listeners) l(this.set);
  }

  /** The compiled steps of a policy (cached per policy-set version). */
  compile(policyName: string): CompiledPolicy | undefined {
    let c = this.compiled.get(policyName);
    if (c) return c;
    const policy = this.set.policies[policyName];
    if (!policy) return undefined;
    c = { policy, guards: [], interceptors: [] };
    for (const name of LOCK_NAMES) {
      const lock = this.locks.get(name);
      const slice = policy.locks[name];
      if (!lock || !slice) continue;
      if (slice.mode === 'off' && slice.override === undefined) continue;
      if (lock.stage === 'guard') c.guards.push({ lock, slice });
      else c.interceptors.push({ lock, slice });
    }
    this.compiled.set(policyName, c);
    return c;
  }

  /** Runs the guard-stage locks of a policy in order (see GuardRunner). */
  runGuards(base: BaseLockContext, steps: Step<GuardLock>[]): void | Promise<void> {
    return this.guards.run(base, steps);
  }

  /**
   * Runs the interceptor-stage locks of a policy, each wrapping the next, the
   * handler last, and counts each lock's outcome (see InterceptorLock).
   */
  runInterceptors(
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

/** What a guard lock's refusal does: answer at once (default), or after the later guards ran. */
const ON_FAILURE: readonly string[] = ['reject', 'defer'];

/** Checks the chain's own slice options: `override` and `onFailure`. */
function validateOverride(slice: LockSlice, path: string): string[] {
  const problems: string[] = [];
  if (slice.onFailure !== undefined && !ON_FAILURE.includes(slice.onFailure as string))
    problems.push(`${path}.onFailure: must be one of ${ON_FAILURE.join(', ')}`);
  const o = slice.override;
  if (o === undefined) return problems;
  if (typeof o !== 'object' || o === null)
    return [...problems, `${path}.override: must be an object {mode, until}`];
  const { mode, until } = o as { mode?: unknown; until?: unknown };
  if (!LOCK_MODES.includes(mode as LockMode))
    problems.push(`${path}.override.mode: must be one of ${LOCK_MODES.join(', ')}`);
  if (until !== undefined && (typeof until !== 'number' || !Number.isFinite(until))) {
    problems.push(`${path}.override.until: must be epoch milliseconds`);
  }
  return problems;
}
