import type { Subject } from '../extensions/rate-limit-extensions.js';
import { subjectId, type KeyHasher } from './key-hasher.js';
import type { Dimension } from '../core/dimensions.js';

/** What a bucket key needs of a rule (a compiled rule is one; cached per rule object). */
export interface KeyedRule {
  dimension: Dimension;
  /** Bucket name: rules with the same action share a bucket. */
  action: string;
  scope: 'service' | 'subject';
}

/**
 * Key of a rule's bucket: `rl:{<env>:<service>}:<dimension>:<subject>:<action>`;
 * with `scope: subject` the whole key is its own hash tag
 * (`rl:{<env>:<service>:<dimension>:<subject>:<action>}`), i.e. its own Cluster slot.
 */
export function bucketKey(
  tag: string,
  rule: KeyedRule,
  subject: Subject,
  hasher: KeyHasher,
): { key: string; group: string } {
  // Cached per hasher, rule and subject: a key is built once, and the same string object then keys every map
  // on the way (deny cache, batch), so its hash is computed once too.
  let c = keyCache.get(hasher);
  if (c === undefined || c.tag !== tag)
    keyCache.set(hasher, (c = { tag, byRule: new WeakMap(), size: 0 }));
  let byRule = c.byRule.get(rule);
  if (byRule === undefined) c.byRule.set(rule, (byRule = new Map()));
  const id = subjectId(subject);
  let at = byRule.get(id);
  if (at === undefined) {
    at = makeKey(tag, rule, subject, hasher);
    if (c.size >= KEY_CACHE_MAX) {
      c.byRule = new WeakMap([[rule, (byRule = new Map())]]);
      c.size = 0;
    }
    byRule.set(id, at);
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
    byRule: WeakMap<KeyedRule, Map<string, { key: string; group: string }>>;
    size: number;
  }
>();

function makeKey(
  tag: string,
  rule: KeyedRule,
  subject: Subject,
  hasher: KeyHasher,
): { key: string; group: string } {
  const tail = `${rule.dimension}:${hasher.part(rule.dimension, subject)}:${rule.action}`;
  if (rule.scope === 'service') return { key: `rl:${tag}:${tail}`, group: tag };
  const own = `{${tag.slice(1, -1)}:${tail}}`;
  return { key: `rl:${own}`, group: own };
}
