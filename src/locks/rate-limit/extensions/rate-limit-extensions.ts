import { Injectable } from '@nestjs/common';
import type { LockContext } from '../../../chain/lock.types.js';
import type { AnyRequest } from '../../../http/http-context.js';
import { DIMENSIONS, type Dimension } from '../core/dimensions.js';
import type { TokenPrice } from '../core/usage-keys.js';

/** A subject before it enters a key: personal ones (IP, user, chat) are hashed with the shared key. */
export interface Subject {
  value: string;
  /** True for anything that identifies a person (IP, user id, chat id): it enters keys only as a keyed hash. */
  personal: boolean;
  /**
   * Who named the value, when the value is only unique within it: the app for a user id that an app gives
   * (session key, trusted user header), the bot for a Telegram user or chat. Part of every key, so two tenants'
   * `user-42` are two subjects. Undefined: the value is global (an IP address, an app id).
   */
  scope?: string;
}

/** What an extractor sees of the request. */
export type SubjectContext = Pick<LockContext, 'req' | 'state' | 'route'>;

/** The subject of one dimension for one request; undefined = none (the rule is skipped and counted). */
export type SubjectExtractor = (ctx: SubjectContext) => Subject | undefined;

/** Tokens one request costs (rounded up; below 1 counts as 1). A route's `state.cost` wins over it. */
export type CostFunction = (req: AnyRequest) => number;

/**
 * What one request reserves for a slice's tokens rules (docs/rate-limit.md#token-rules): its prompt's token count
 * (an upper bound) and the most tokens it may generate, and the model it names (`perModel` rules); undefined = the
 * request has no size (its tokens rules are skipped, as a rule without subject). `price`: the model's price in USD per
 * 1M tokens, for the spend its usage records (docs/quotas.md#usage-and-spend).
 */
export type TokenFunction = (
  req: AnyRequest,
) => { prompt: number; completion: number; model?: string; price?: TokenPrice } | undefined;

/** A named value of the request that rule conditions (`when`, `unless`) test; undefined = no value. */
export type AttributeFunction = (ctx: SubjectContext) => string | undefined;

/** A once-only id of the request (e.g. a webhook's update id), claimed for `ttlMs` milliseconds; undefined = none. */
export type ClaimFunction = (ctx: SubjectContext) => { id: string; ttlMs: number } | undefined;

/**
 * A multiplier of capacity and rate (like a tier) of one dimension's rules for this request and subject, e.g. a
 * Telegram group's size for its `chat` rules. Called per request on the hot path: it must answer at once (no I/O);
 * not finite or ≤ 0 counts as 1.
 */
export type ScaleFunction = (ctx: SubjectContext, subject: Subject) => number;

/** What a product plugs into the rate limiter: `RateLimitModule.forFeature(feature)`. */
export interface RateLimitFeature {
  /** Named cost functions, usable as a slice's `cost: <name>`. Names match `[a-z][a-z0-9-]*`. */
  costs?: Record<string, CostFunction>;
  /**
   * Subject extractors per dimension. A built-in dimension (app, user, ip, route, global) asks its
   * extractor only when it finds no subject itself (e.g. the Telegram sender for `user`); `command`,
   * `chat` and `bot` have no built-in subject.
   */
  subjects?: Partial<Record<Dimension, SubjectExtractor>>;
  /** Named request attributes for rule conditions (`when: {chatType: [group]}`). Names match `[a-z][a-zA-Z0-9]*`. */
  attributes?: Record<string, AttributeFunction>;
  /** Named claims, usable as a slice's `claim: <name>` (dedup decided in the same call as the rules). */
  claims?: Record<string, ClaimFunction>;
  /** Named token counters, usable as a slice's `tokens: <name>` (what its tokens rules reserve). */
  tokens?: Record<string, TokenFunction>;
  /** Per dimension, a multiplier of that dimension's rules for each request (one product per dimension). */
  scales?: Partial<Record<Dimension, ScaleFunction>>;
}

const COST_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const ATTRIBUTE_NAME = /^[a-z][a-zA-Z0-9]{0,39}$/;

/**
 * What the products registered: named cost functions and subject extractors.
 * Filled while the app is built (each `forFeature` module registers when it
 * is created), read when slices are validated (boot, admin API) and when a
 * slice is compiled, once per slice, never per request.
 */
@Injectable()
export class RateLimitExtensions {
  private readonly costs = new Map<string, CostFunction>();
  private readonly subjects = new Map<Dimension, SubjectExtractor>();
  private readonly attributes = new Map<string, AttributeFunction>();
  private readonly claims = new Map<string, ClaimFunction>();
  private readonly tokenFns = new Map<string, TokenFunction>();
  private readonly scales = new Map<Dimension, ScaleFunction>();

  /** Adds a product's cost functions and extractors; a name or dimension registered twice stops the boot. */
  register(feature: RateLimitFeature): void {
    for (const [name, fn] of Object.entries(feature.costs ?? {})) {
      if (!COST_NAME.test(name))
        throw new Error(`RateLimitModule.forFeature: cost "${name}" must match [a-z][a-z0-9-]*`);
      if (this.costs.has(name))
        throw new Error(`RateLimitModule.forFeature: cost "${name}" is registered twice`);
      this.costs.set(name, fn);
    }
    perDimension('extractor', feature.subjects, this.subjects);
    perDimension('scale', feature.scales, this.scales);
    named('attribute', feature.attributes, this.attributes, ATTRIBUTE_NAME, '[a-z][a-zA-Z0-9]*');
    named('claim', feature.claims, this.claims, COST_NAME, '[a-z][a-z0-9-]*');
    named('token counter', feature.tokens, this.tokenFns, COST_NAME, '[a-z][a-z0-9-]*');
  }

  /** Names a slice may use as `tokens`, in registration order. */
  tokenNames(): string[] {
    return [...this.tokenFns.keys()];
  }

  tokens(name: string): TokenFunction | undefined {
    return this.tokenFns.get(name);
  }

  /** Attribute names rule conditions may test, in registration order. */
  attributeNames(): string[] {
    return [...this.attributes.keys()];
  }

  attribute(name: string): AttributeFunction | undefined {
    return this.attributes.get(name);
  }

  /** Names a slice may use as `claim`, in registration order. */
  claimNames(): string[] {
    return [...this.claims.keys()];
  }

  claim(name: string): ClaimFunction | undefined {
    return this.claims.get(name);
  }

  /** Names a slice may use as `cost`, in registration order. */
  costNames(): string[] {
    return [...this.costs.keys()];
  }

  cost(name: string): CostFunction | undefined {
    return this.costs.get(name);
  }

  subject(dimension: Dimension): SubjectExtractor | undefined {
    return this.subjects.get(dimension);
  }

  scale(dimension: Dimension): ScaleFunction | undefined {
    return this.scales.get(dimension);
  }
}

/** Adds per-dimension functions: an unknown dimension or one registered twice stops the boot. */
function perDimension<F>(
  what: string,
  from: Partial<Record<Dimension, F>> | undefined,
  into: Map<Dimension, F>,
): void {
  for (const [dimension, fn] of Object.entries(from ?? {}) as [string, F | undefined][]) {
    if (fn === undefined) continue;
    if (!(DIMENSIONS as readonly string[]).includes(dimension))
      throw new Error(
        `RateLimitModule.forFeature: unknown dimension "${dimension}" (known: ${DIMENSIONS.join(', ')})`,
      );
    if (into.has(dimension as Dimension))
      throw new Error(`RateLimitModule.forFeature: dimension "${dimension}" has two ${what}s`);
    into.set(dimension as Dimension, fn);
  }
}

/** Adds named functions to `into`: a bad name or a name registered twice stops the boot. */
function named<F>(
  what: string,
  from: Record<string, F> | undefined,
  into: Map<string, F>,
  pattern: RegExp,
  shown: string,
): void {
  for (const [name, fn] of Object.entries(from ?? {})) {
    if (!pattern.test(name))
      throw new Error(`RateLimitModule.forFeature: ${what} "${name}" must match ${shown}`);
    if (into.has(name))
      throw new Error(`RateLimitModule.forFeature: ${what} "${name}" is registered twice`);
    into.set(name, fn);
  }
}
