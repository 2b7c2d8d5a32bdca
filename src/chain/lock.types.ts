import type { ProblemException } from '../common/problem.exception.js';
import type { AnyReply, AnyRequest } from '../http/http-context.js';
import type { RequestState } from '../http/request-state.js';
import type { LockName } from './lock-order.js';
import type { LockMode, LockSlice, RoutePolicy } from '../config/policy.types.js';

/** What a lock sees of the request it decides on. */
export interface LockContext {
  readonly req: AnyRequest;
  readonly reply: AnyReply;
  readonly state: RequestState;
  /** Name of the route policy, e.g. `search`. */
  readonly policyName: string;
  readonly policy: RoutePolicy;
  /** Route template, e.g. `/v1/search/items/:id`. */
  readonly route: string;
  /** Effective mode of this lock on this request (time-boxed overrides applied). */
  readonly mode: Exclude<LockMode, 'off'>;
}

interface LockBase<S extends LockSlice> {
  readonly name: LockName;
  /**
   * Checks the lock's slice of a route policy; returns one message per problem
   * (empty = valid). `path` is the slice's location, for messages.
   * Used at boot and by the admin API before a change applies.
   */
  validateSlice(slice: LockSlice, path: string): string[];
  /**
   * Optional: checks rules that span policies (e.g. several policies sharing
   * one breaker); runs after every slice passed validateSlice. Same contract.
   */
  validatePolicies?(policies: Record<string, RoutePolicy>): string[];
  /** Optional hook: the policy set changed (e.g. a breaker re-reads its options). */
  onPolicies?(policies: Record<string, RoutePolicy>, version: number): void;
  /** Type witness only. */
  readonly _slice?: S;
}

/** What a guard lock's `check` gives: allowed (nothing), refused (a ProblemException), or later (a promise). */
export type GuardResult = void | ProblemException | Promise<void>;

/** A lock that decides before the handler runs (Nest guard stage). */
export interface GuardLock<S extends LockSlice = LockSlice> extends LockBase<S> {
  readonly stage: 'guard';
  /**
   * Returns nothing or resolves to allow; throws a ProblemException, or returns one (at once, not
   * through the promise), to reject. Returning it is the same refusal with one JavaScript throw
   * fewer (each costs about a microsecond: reject paths under a flood are hot). In shadow mode the
   * chain records the rejection and lets the request through.
   */
  check(ctx: LockContext, slice: S): GuardResult;
  /**
   * Optional: true when this check will make the pending `state.claimHandoff` claim in its
   * own store call (and set its result). Asked right before `check`; when it says no, the
   * chain has the owner settle the claim first, so the order of effects stays that of
   * separate calls.
   */
  takesClaim?(ctx: LockContext, slice: S): boolean;
}

/**
 * How an interceptor-stage lock calls on. `next()` counts the request as
 * `allowed`; in shadow mode, `next('shadow_rejected')` says the lock would
 * have answered itself.
 */
export type Next = (outcome?: 'allowed' | 'shadow_rejected') => Promise<unknown>;

/** A lock that wraps the handler (Nest interceptor stage). */
export interface InterceptorLock<S extends LockSlice = LockSlice> extends LockBase<S> {
  readonly stage: 'interceptor';
  /**
   * Calls `next()` to go on to the next lock / the handler, or answers itself
   * (short circuit). The chain counts the outcome: a value returned without
   * calling on is `short_circuited`, a ProblemException thrown without calling
   * on is `rejected` (`short_circuited` when marked `asAnswer()`, e.g. a 404 the
   * route would give too). Shadow mode is the lock's own business here: it
   * must observe and still call on, with `next('shadow_rejected')` when it
   * would have answered.
   */
  around(ctx: LockContext, slice: S, next: Next): Promise<unknown>;
}

export type Lock = GuardLock | InterceptorLock;

/** Outcome of one lock on one request, as counted by LockStats. */
export type LockOutcome =
  'allowed' | 'rejected' | 'shadow_rejected' | 'short_circuited' | 'skipped';
