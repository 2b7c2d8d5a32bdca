import { parseRate } from '../../locks/rate-limit/core/rate-parse.js';
import type { OutboundBuckets, SendBucket } from './outbound-settings.types.js';

function bucket(v: unknown, at: string, p: string[]): SendBucket | undefined {
  const o = v as { rate?: unknown; burst?: unknown } | null;
  const perSecond = parseRate(o?.rate);
  const burst = o?.burst ?? 1;
  if (perSecond === undefined || !Number.isInteger(burst) || (burst as number) < 1) {
    p.push(`${at} must be { rate: "<n>/<unit>", burst?: integer ≥ 1 }`);
    return undefined;
  }
  return { perSecond, burst: burst as number };
}

/**
 * Parses a `buckets` map (`bot`, `private`, `group`, `methods`) over `base`:
 * a bucket not named keeps the base's, a method bucket is added to the base's
 * (`off`: that method's bucket goes; `methods: off`: every method bucket goes).
 */
export function parseBuckets(
  v: unknown,
  base: OutboundBuckets,
  at: string,
  p: string[],
): OutboundBuckets {
  const out = structuredClone(base);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    p.push(`${at} must be a map of bot, private, group, methods`);
    return out;
  }
  for (const [b, bv] of Object.entries(v as Record<string, unknown>)) {
    if (b === 'bot' || b === 'private' || b === 'group') {
      const s = bucket(bv, `${at}.${b}`, p);
      if (s) out[b] = s;
    } else if (b === 'methods' && bv === 'off') out.methods = {};
    else if (b === 'methods' && typeof bv === 'object' && bv !== null) {
      for (const [m, mv] of Object.entries(bv)) {
        if (mv === 'off') delete out.methods[m];
        else {
          const s = bucket(mv, `${at}.methods.${m}`, p);
          if (s) out.methods[m] = s;
        }
      }
    } else p.push(`${at}.${b} is not a known bucket (bot, private, group, methods)`);
  }
  return out;
}
