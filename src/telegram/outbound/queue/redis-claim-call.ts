import { randomUUID } from 'node:crypto';
import type { RedisService } from '../../../redis/redis.service.js';
import type { IdCipher } from '../id-cipher.js';
import type { Lease } from './outbound-queue.store.js';
import { decodeJob, parseLost } from './redis-job-codec.js';
import { movedTo } from './redis-lane-move.js';

/** What a claim call answers when its partition has no lane at all and it claimed none. */
export const NONE_CLAIMED = -2;

/** One claim call's arguments: `levels` `h` (high only) or `all`; `upto`: only lanes due by then (ms). */
export interface ClaimArgs {
  now: number;
  leaseMs: number;
  want: number;
  levels: string;
  upto?: number;
}

/**
 * One claim call on the partition of prefix `p` (lua/telegram_queue_claim.lua); adds its leases to `leases`.
 * Returns the partition's next due ms (-1: no lane waits, NONE_CLAIMED: none, and none claimed).
 */
export async function claimCall(
  redis: Pick<RedisService, 'script'>,
  ids: IdCipher,
  p: string,
  a: ClaimArgs,
  leases: Lease[],
): Promise<number> {
  const r = await redis.script<[number, ...[string, string, number, string[], string][]]>(
    'telegram_queue_claim',
    [`${p}:lanes`],
    [
      p,
      a.now,
      a.leaseMs,
      a.want,
      randomUUID(),
      a.levels,
      ...(a.upto === undefined ? [] : [a.upto]),
    ],
  );
  for (const [lane, token, reclaimed, hash, place] of r.slice(1) as [
    string,
    string,
    number,
    string[],
    string,
  ][])
    leases.push({
      lane,
      token,
      reclaimed: reclaimed === 1,
      expires: a.now + a.leaseMs,
      lost: parseLost(hash.find((_, i) => i % 2 === 1 && hash[i - 1] === 'lost')),
      job: decodeJob(hash, ids)!,
      place: Number(place),
      movedTo: movedTo(hash, lane, ids),
    });
  return r.length === 1 && r[0] < 0 ? NONE_CLAIMED : r[0];
}
