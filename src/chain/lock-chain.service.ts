import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { ConfigError } from '../config/config.error.js';
import { InjectConfig } from '../config/config.module.js';
import type { RampartConfig } from '../config/config.types.js';
import { LOCK_NAMES, LockName } from './lock-order.js';
import type { BaseLockContext } from './lock-context.js';
import type { GuardLock, GuardResult, InterceptorLock, Lock } from './lock.types.js';
import { PolicySet, RoutePolicy } from '../config/policy.types.js';
import { LockStats } from './lock-stats.service.js';
import { type CompiledPolicy, compileSteps } from './compile-steps.js';
import type { Step } from './guard-refusal.js';
import { GuardRunner } from './run-guards.js';
import { InterceptorRunner } from './run-interceptors.js';
import { checkRegistration, describeChain } from './lock-registration.js';
import { policyRejected, validatePolicies } from './validate-policies.js';

export { effectiveMode } from './lock-mode.js';

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
  private readonly interceptors: InterceptorRunner;

  constructor(
    @InjectConfig() config: RampartConfig,
    readonly stats: LockStats,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.guards = new GuardRunner(stats, clock);
    this.interceptors = new InterceptorRunner(stats, clock);
    this.set = {
      version: 1,
      updatedAt: new Date(clock.now()).toISOString(),
      policies: structuredClone(config.policies),
    };
  }

  /** Called by each lock module at init: `chain.register(this.lock)`. */
  register(lock: Lock): void {
    checkRegistration(lock, this.locks);
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
    this.logger.log(describeChain(this.locks));
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

  /** Every problem with a candidate policy set; empty = valid (see validatePolicies). */
  validate(policies: Record<string, RoutePolicy>): string[] {
    return validatePolicies(policies, this.locks, this.required);
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
    if (problems.length > 0) throw policyRejected(problems);
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
    c = compileSteps(policy, this.locks);
    this.compiled.set(policyName, c);
    return c;
  }

  /** Runs the guard-stage locks of a policy in order; a refusal decided at once is returned (see GuardRunner). */
  runGuards(base: BaseLockContext, steps: Step<GuardLock>[]): GuardResult {
    return this.guards.run(base, steps);
  }

  /**
   * Runs the interceptor-stage locks of a policy, each wrapping the next, the
   * handler last (see InterceptorRunner).
   */
  runInterceptors(
    base: BaseLockContext,
    steps: Step<InterceptorLock>[],
    handler: () => Promise<unknown>,
  ): Promise<unknown> {
    return this.interceptors.run(base, steps, handler);
  }
}
