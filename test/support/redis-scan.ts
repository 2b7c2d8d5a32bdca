import type { Redis } from 'ioredis';

/**
 * Every key matching `pattern` and everything stored under it (strings, hash fields and values, set and sorted
 * set members, list items, stream entries), one text per key: what a scan for ids sent in clear reads.
 */
export async function redisTexts(client: Redis, pattern = '*'): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    for (const key of keys) out.push(`${key} ${JSON.stringify(await valueOf(client, key))}`);
  } while (cursor !== '0');
  return out;
}

async function valueOf(client: Redis, key: string): Promise<unknown> {
  switch (await client.type(key)) {
    case 'string':
      return client.get(key);
    case 'hash':
      return client.hgetall(key);
    case 'set':
      return client.smembers(key);
    case 'zset':
      return client.zrange(key, '0', '-1', 'WITHSCORES');
    case 'list':
      return client.lrange(key, 0, -1);
    case 'stream':
      return client.xrange(key, '-', '+');
    default:
      return null;
  }
}

/** The texts of `redisTexts` that contain any of `needles`. */
export function containing(texts: readonly string[], needles: readonly string[]): string[] {
  return texts.filter((t) => needles.some((n) => t.includes(n)));
}
