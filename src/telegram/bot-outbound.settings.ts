import { type OutboundBuckets, parseBuckets } from './outbound/outbound.settings.js';

/**
 * Parses a bot's own `outbound` block (`telegram.bots[].outbound`): today its
 * `buckets`, laid over the global `telegram.outbound.buckets` (a bucket it
 * does not name keeps the global one). Undefined when the bot has none.
 */
export function botOutboundBuckets(
  v: unknown,
  base: OutboundBuckets,
  at: string,
  p: string[],
): OutboundBuckets | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    p.push(`${at}.outbound must be an object ({ buckets })`);
    return undefined;
  }
  let buckets: OutboundBuckets | undefined;
  for (const [k, bv] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'buckets') buckets = parseBuckets(bv, base, `${at}.outbound.buckets`, p);
    else p.push(`${at}.outbound.${k} is not a known option (buckets)`);
  }
  return buckets;
}
