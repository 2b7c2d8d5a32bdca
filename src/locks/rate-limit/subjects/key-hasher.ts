import { createHmac } from 'node:crypto';
import type { Subject } from '../extensions/rate-limit-extensions.js';
import type { Dimension } from '../rate-limit.types.js';

const SAFE = /^[A-Za-z0-9._\-/]{1,128}$/;

/**
 * Turns subjects into key parts: personal values as a keyed hash (HMAC-SHA256,
 * 96 bits, base64url), others escaped so they can never break the key schema.
 * Not cached here: request-buckets.ts caches whole bucket keys per hasher, rule
 * and subject (floods repeat the same subjects), so this runs on a miss only.
 */
export class KeyHasher {
  constructor(private readonly secret: Buffer) {}

  part(dimension: Dimension, s: Subject): string {
    if (!s.personal)
      return SAFE.test(s.value)
        ? s.value
        : encodeURIComponent(s.value)
            .replace(/[*.'()!~]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)
            .slice(0, 256);
    return createHmac('sha256', this.secret)
      .update(`${dimension}\u0000${s.value}`)
      .digest('base64url')
      .slice(0, 16);
  }
}
