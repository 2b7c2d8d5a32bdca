import type { LockContext } from '../../../chain/lock.types.js';
import type { AnyRequest } from '../../../http/http-context.js';
import type { Dimension } from '../core/dimensions.js';
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
