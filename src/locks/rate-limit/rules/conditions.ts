import type {
  AttributeFunction,
  RateLimitExtensions,
  SubjectContext,
} from '../extensions/rate-limit-extensions.js';
import type { RuleConfig } from '../core/rule-config.types.js';

/** One attribute test of a rule: the attribute's function and the values that match. */
interface Test {
  name: string;
  fn: AttributeFunction;
  values: ReadonlySet<string>;
}

/** A rule's `when` (every test matches) and `unless` (no test matches), ready to run. */
export interface Conditions {
  when: Test[];
  unless: Test[];
}

/** Compiles a rule's conditions (undefined when it has none); an unregistered attribute never matches. */
export function compileConditions(
  rule: Pick<RuleConfig, 'when' | 'unless'>,
  extensions: Pick<RateLimitExtensions, 'attribute'>,
): Conditions | undefined {
  if (!rule.when && !rule.unless) return undefined;
  const tests = (c: Record<string, string[]> | undefined): Test[] =>
    Object.entries(c ?? {}).map(([name, values]) => ({
      name,
      // Validation admits only registered names; a missing one (unvalidated slice) has no value.
      fn: extensions.attribute(name) ?? (() => undefined),
      values: new Set(values),
    }));
  return { when: tests(rule.when), unless: tests(rule.unless) };
}

/**
 * Attribute values of one request, each function asked at most once however
 * many rules test it.
 */
export class AttributeValues {
  private readonly seen = new Map<string, string | undefined>();

  constructor(private readonly ctx: SubjectContext) {}

  get(t: Test): string | undefined {
    if (this.seen.has(t.name)) return this.seen.get(t.name);
    const v = t.fn(this.ctx);
    this.seen.set(t.name, v);
    return v;
  }

  /** True when the rule applies: every `when` value listed, no `unless` value listed. */
  applies(c: Conditions): boolean {
    for (const t of c.when) {
      const v = this.get(t);
      if (v === undefined || !t.values.has(v)) return false;
    }
    for (const t of c.unless) {
      const v = this.get(t);
      if (v !== undefined && t.values.has(v)) return false;
    }
    return true;
  }
}
