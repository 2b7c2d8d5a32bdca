import type { Redis } from 'ioredis';
import type { RedisClient } from '../../redis/redis.client.js';

/** Redis-side figures of the service's Redis, sampled on a timer (never per request). */
export interface RedisFigures {
  /** Memory Redis uses, in bytes (INFO `used_memory`), summed over the masters. */
  usedMemoryBytes: number;
  /** Redis `maxmemory` in bytes, summed over the masters; 0 = no limit set. */
  maxMemoryBytes: number;
  /** Keys in the database (DBSIZE), summed over the masters. */
  keys: number;
  /** Keys of this service's rate limiter (`rl:{<env>:<service>}:…` and `rl:{<env>:<service>:…}`). */
  rateLimitKeys: number;
  /** True when the SCAN budget ran out and `rateLimitKeys` is estimated from the share scanned. */
  estimated: boolean;
  /** ISO time of the sample. */
  sampledAt: string;
}

const SCAN_COUNT = 1000;

/** `*?[]\` escaped, so that the hash tag is matched literally by SCAN MATCH. */
export function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * SCAN MATCH pattern of the rate limiter's keys for a hash tag `{<env>:<service>}`:
 * both the shared-slot form `rl:{env:svc}:…` and the own-slot form
 * `rl:{env:svc:…}` (see rate-limit/subjects/bucket-keys.ts), and no other
 * service whose name merely starts the same.
 */
export function rateLimitKeyPattern(tag: string): string {
  return `rl:${globEscape(tag.slice(0, -1))}[}:]*`;
}

/** A number field of an INFO section, 0 when absent. */
export function infoField(info: string, field: string): number {
  const m = new RegExp(`^${field}:(\\d+)\\r?$`, 'm').exec(info);
  return m ? Number(m[1]) : 0;
}

/**
 * Measures every master: INFO memory, DBSIZE and a SCAN of the rate-limit
 * keys that examines at most `maxScan` keys in all (SCAN COUNT is a hint;
 * the budget counts `COUNT` per call). A node whose scan did not finish
 * within its share is estimated: matched keys ÷ keys examined × DBSIZE.
 */
export async function measureRedis(
  client: RedisClient,
  pattern: string,
  maxScan: number,
  now: number,
): Promise<RedisFigures> {
  const nodes: Redis[] = 'nodes' in client ? client.nodes('master') : [client];
  const out: RedisFigures = {
    usedMemoryBytes: 0,
    maxMemoryBytes: 0,
    keys: 0,
    rateLimitKeys: 0,
    estimated: false,
    sampledAt: new Date(now).toISOString(),
  };
  const perNode = Math.max(SCAN_COUNT, Math.floor(maxScan / Math.max(1, nodes.length)));
  for (const node of nodes) {
    const [info, size] = await Promise.all([node.info('memory'), node.dbsize()]);
    out.usedMemoryBytes += infoField(info, 'used_memory');
    out.maxMemoryBytes += infoField(info, 'maxmemory');
    out.keys += size;
    let cursor = '0';
    let matched = 0;
    let examined = 0;
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      matched += keys.length;
      examined += SCAN_COUNT;
    } while (cursor !== '0' && examined < perNode);
    if (cursor === '0') out.rateLimitKeys += matched;
    else {
      out.estimated = true;
      out.rateLimitKeys += Math.round((matched / examined) * size);
    }
  }
  return out;
}
