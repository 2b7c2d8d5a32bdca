import type { Subject } from '../extensions/rate-limit-extensions.js';
import type { KeyHasher } from '../subjects/key-hasher.js';
import type { CompiledRule } from './compile-policy.js';

/** A rule that applies to this request, with its subject. */
export interface ActiveRule {
  rule: CompiledRule;
  subject: Subject;
}

/**
 * Key of a rule's bucket: `rl:{<env>:<service>}:<dimension>:<subject>:<action>`;
 * with `scope: subject` the whole key is its own hash tag
 * (`rl:{<env>:<service>:<dimension>:<subject>:<action>}`), i.e. its own Cluster slot.
 */
export function bucketKey(
  tag: string,
  a: ActiveRule,
  hasher: KeyHasher,
): { key: string; group: string } {
  // Cached per hasher, rule and subject: a key is built once, and the same string object then keys every map
  // on the way (deny cache, batch), so its hash is computed once too.
  let c = keyCache.get(hasher);
  if (c === undefined || c.tag !== tag)
    keyCache.set(hasher, (c = { tag, byRule: new WeakMap(), size: 0 }));
  let byRule = c.byRule.get(a.rule);
  if (byRule === undefined) c.byRule.set(a.rule, (byRule = new Map()));
  let at = byRule.get(a.subject.value);
  if (at === undefined) {
    at = makeKey(tag, a, hasher);
    if (c.size >= KEY_CACHE_MAX) {
      c.byRule = new WeakMap([[a.rule, (byRule = new Map())]]);
      c.size = 0;
    }
    byRule.set(a.subject.value, at);
    c.size += 1;
  }
  return at;
}

/** Most bucket keys kept per hasher (all dropped at once past it: floods repeat the same subjects). */
const KEY_CACHE_MAX = 50_000;
const keyCache = new WeakMap<
  KeyHasher,
  {
    tag: string;
    byRule: WeakMap<CompiledRule, Map<string, { key: string; group: string }>>;
    size: number;
  }
>();

function makeKey(tag: string, a: ActiveRule, hasher: KeyHasher): { key: string; group: string } {
  const tail = `${a.rule.dimension}:${hasher.part(a.rule.dimension, a.subject)}:${a.rule.action}`;
  if (a.rule.scope === 'service') return { key: `rl:${tag}:${tail}`, group: tag };
  const own = `{${tag.slice(1, -1)}:${tail}}`;
  return { key: `rl:${own}`, group: own };
}
