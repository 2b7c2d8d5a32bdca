import { Injectable } from '@nestjs/common';
import { DIMENSIONS, type Dimension } from '../core/dimensions.js';
import type {
  AttributeFunction,
  ClaimFunction,
  CostFunction,
  RateLimitFeature,
  ScaleFunction,
  SubjectExtractor,
  TokenFunction,
} from './rate-limit-extension.types.js';

export type {
  AttributeFunction,
  ClaimFunction,
  CostFunction,
  RateLimitFeature,
  ScaleFunction,
  Subject,
  SubjectContext,
  SubjectExtractor,
  TokenFunction,
} from './rate-limit-extension.types.js';

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
