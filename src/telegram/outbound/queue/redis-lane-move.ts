import type { RedisService } from '../../../redis/redis.service.js';
import type { IdCipher } from '../id-cipher.js';
import { appOfJob } from '../job-namespace.js';
import { laneOf } from '../outbound.types.js';
import { type Lease, partitionOf } from './outbound-queue.store.js';

type Runner = Pick<RedisService, 'script' | 'run'>;

export interface LaneMoveParts {
  redis: Runner;
  ids: IdCipher;
  partitions: number;
  prefix: (k: number) => string;
  idKey: (id: string) => string;
  /** The wake channel of partition k. */
  wake: (k: number) => string;
}

/**
 * Moves a held lane's jobs of its head's app to the lane of chat `to` (OutboundQueueStore.migrate). The two
 * lanes are in two partitions (two hash slots), so the move is three steps, each atomic, in an order a crash
 * cannot turn into a loss or a second send: (1) lua/telegram_queue_adopt.lua writes the jobs into the new lane,
 * in posting order, in one call; (2) each job's id points to the new partition; (3) lua/telegram_queue_detach.lua
 * takes them out of the old lane, which ends the lease. Until (3) the old lane is held; a worker that died there
 * leaves the lane to be reclaimed, and its head (a chat known to have moved) is moved again, not sent
 * (send-attempt.ts): step (1) skips the jobs already taken in. The jobs are read while the lane is held: only
 * its head is fixed, so a job cancelled in between is queued in the new lane anyway (documented).
 */
export async function moveLane(p: LaneMoveParts, lease: Lease, to: string, now: number) {
  const from = p.prefix(partitionOf(lease.lane, p.partitions));
  const line = await p.redis.run('telegram.job', (c) => c.lrange(`${from}:l:${lease.lane}`, 0, -1));
  const holder = await p.redis.run('telegram.job', (c) => c.hget(`${from}:lease`, lease.lane));
  // Not this lease's lane (any more): nothing moves (step 3 checks it again, atomically).
  if (holder !== lease.token || line[0] !== lease.job.id) return [];
  const app = appOfJob(lease.job.id);
  const args: (string | number)[] = [];
  const ids: string[] = [];
  // The jobs not yet taken in (one partition: a job taken in has its hash rewritten, lane and all).
  const mark: string[] = [];
  for (const id of line.filter((i) => appOfJob(i) === app)) {
    const h = await p.redis.run('telegram.job', (c) => c.hgetall(`${from}:j:${id}`));
    const pairs = Object.entries(h);
    if (pairs.length === 0) continue;
    ids.push(id);
    args.push(id, pairs.length, ...pairs.flat());
    if (h.lane === lease.lane) mark.push(id);
  }
  const lane = laneOf({ ...lease.job, chatId: p.ids.pseudonym(to) });
  if (lane === lease.lane) return [];
  // Marked first: a job left in the old lane by a move cut short is known as such when claimed (movedTo).
  const sealed = p.ids.seal(to);
  for (const id of mark)
    await p.redis.run('telegram.job', (c) => c.hset(`${from}:j:${id}`, 'mv', sealed));
  const k = partitionOf(lane, p.partitions);
  const dest = p.prefix(k);
  await p.redis.script<string[]>(
    'telegram_queue_adopt',
    [`${dest}:lanes`],
    [dest, lane, lease.lane, now, sealed, p.wake(k), ...args],
  );
  for (const id of ids)
    await p.redis.run('telegram.id', (c) => c.set(p.idKey(id), k, 'KEEPTTL', 'XX'));
  const ok = await p.redis.script<number>(
    'telegram_queue_detach',
    [`${from}:lanes`],
    [from, lease.lane, lease.token, lease.job.id, now, ...ids],
  );
  // A job not taken in was taken in by an earlier, interrupted move of this lane: moved all the same.
  return ok === 1 ? ids : [];
}

/**
 * The chat a claimed job of `lane` was moved to by a move cut short, or undefined: its hash names another lane
 * (rewritten in place: one partition), or still carries the move's mark (`mv`, the new chat sealed: the copy in
 * the new lane's partition has it cleared).
 */
export function movedTo(hash: string[], lane: string, ids: IdCipher): string | undefined {
  const f = (name: string) => hash.find((_, i) => i % 2 === 1 && hash[i - 1] === name);
  const mv = f('mv');
  if (mv) return ids.open(mv);
  const at = f('lane');
  return at !== undefined && at !== lane ? ids.open(f('chat')!) : undefined;
}
