import { createHmac } from 'node:crypto';
import type { Subject } from '../extensions/rate-limit-extensions.js';
import type { Dimension } from '../core/dimensions.js';

const SAFE = /^[A-Za-z0-9._\-/]{1,128}$/;

/**
 * Turns subjects into key parts: personal values as a keyed hash (HMAC-SHA256,
 * 96 bits, base64url), others escaped so they can never break the key schema.
 * Not cached here: request-buckets.ts caches whole bucket keys per hasher, rule
 * and subject (floods repeat the same subjects), so this runs on a miss only.
 */
export class KeyHasher {
  constructor(private readonly secret: Buffer) {}

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
    return createHmac('sha256', this.secret).update(named).digest('base64url').slice(0, 16);
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
