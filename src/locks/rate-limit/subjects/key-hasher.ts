import { createHmac } from 'node:crypto';
import type { Subject } from '../extensions/rate-limit-extensions.js';
import type { Dimension } from '../core/dimensions.js';

const SAFE = /^[A-Za-z0-9._\-/]{1,128}$/;

/** Most personal parts remembered per hasher (all dropped at once past it, as bucket-keys.ts does). */
export const PART_MEMO_MAX = 20_000;

/**
 * Turns subjects into key parts: personal values as a keyed hash (HMAC-SHA256,
 * 96 bits, base64url), others escaped so they can never break the key schema.
 * Personal parts are remembered (bounded): a request's address is hashed for the
 * front door's ban check and again for its bucket keys, and the ban check runs on
 * every request while a ban of an address is held; floods repeat their subjects.
 */
export class KeyHasher {
  /** HMAC input → part: the input names dimension, scope and value, so no subject reads another's. */
  private memo = new Map<string, string>();

  constructor(private readonly secret: Buffer) {}

  /** Personal parts remembered now (for tests of the bound). */
  get remembered(): number {
    return this.memo.size;
  }

  /**
   * A scoped subject (Subject.scope) hashes as `<dimension>@<scope length>:<scope>\0<value>` (an unscoped one as
   * `<dimension>\0<value>`, as before scopes), so no scope and value can give another's part; a non-personal
   * one reads `<scope>~<value>` (`~` never appears in an escaped part).
   */
  part(dimension: Dimension, s: Subject): string {
    if (!s.personal)
      return s.scope === undefined ? escaped(s.value) : `${escaped(s.scope)}~${escaped(s.value)}`;
    const named =
      s.scope === undefined
        ? `${dimension}\u0000${s.value}`
        : `${dimension}@${s.scope.length}:${s.scope}\u0000${s.value}`;
    let part = this.memo.get(named);
    if (part !== undefined) return part;
    part = createHmac('sha256', this.secret).update(named).digest('base64url').slice(0, 16);
    if (this.memo.size >= PART_MEMO_MAX) this.memo = new Map();
    this.memo.set(named, part);
    return part;
  }
}

/** Cache key of a subject: its value, with its scope in front when it has one. */
export function subjectId(s: Subject): string {
  return s.scope === undefined ? s.value : `${s.scope.length}:${s.scope}\u0000${s.value}`;
}

function escaped(v: string): string {
  return SAFE.test(v)
    ? v
    : encodeURIComponent(v)
        .replace(/[*.'()!~]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)
        .slice(0, 256);
}
