import type { IdCipher } from '../id-cipher.js';
import { appOfJob } from '../job-namespace.js';
import { laneOf } from '../outbound.types.js';
import type { Lease } from './outbound-queue.store.js';
import type { RedisQueueParts } from './redis-queue.parts.js';

/** A lane move under way: what its first step (the marks) found. */
export interface LaneMove {
  lease: Lease;
  /** The new chat id, sealed (the marks' value). */
  sealed: string;
  /** The new lane, and the partitions of the old and the new lane. */
  lane: string;
  from: number;
  to: number;
  /** The jobs to move, oldest first, with their hashes as the marks left them (HGETALL, flat). */
  jobs: [string, string[]][];
}

/** What the adopt did: the ids moved (taken in now or before) and the ids cancelled while moving. */
export interface Adopted {
  moved: string[];
  cancelled: string[];
}

/**
 * Moves a held lane's jobs of its head's app to the lane of chat `to` (OutboundQueueStore.migrate). The two
 * lanes are in two partitions (two hash slots), so the move is four steps, each atomic, in an order a crash
 * cannot turn into a loss or a second send, and a cancel cannot lose or undo: (1) lua/telegram_queue_mark.lua
 * marks the old lane's jobs (`mv`, the new chat sealed) and reads them, checking the lease; (2)
 * lua/telegram_queue_adopt.lua writes them into the new lane, in posting order, in one call, leaving out those
 * cancelled since (3) each job's id points to the new partition; (4) lua/telegram_queue_detach.lua takes them
 * out of the old lane, which ends the lease. Until (4) the old lane is held; a worker that died there leaves
 * the lane to be reclaimed, and its head (a chat known to have moved) is moved again, not sent
 * (lease-checks.ts): step (2) skips the jobs already taken in. A cancel of a marked job cancels it in both
 * lanes (redis-queue.cancel.ts); the steps are exported for the spec that interleaves cancels with them.
 */
export async function moveLane(p: RedisQueueParts, lease: Lease, to: string, now: number) {
  const move = await markLane(p, lease, to);
  if (!move) return [];
  const { moved, cancelled } = await adoptJobs(p, move, now);
  await pointIds(p, move, moved);
  // A job not taken in was taken in by an earlier, interrupted move of this lane: moved all the same.
  return (await detachLane(p, move, moved, cancelled, now)) ? moved : [];
}

/** Step 1: the marks. Undefined when the lease is not the lane's, or the chat's lane does not change. */
export async function markLane(
  p: RedisQueueParts,
  lease: Lease,
  to: string,
): Promise<LaneMove | undefined> {
  const lane = laneOf({ ...lease.job, chatId: p.ids.pseudonym(to) });
  if (lane === lease.lane) return undefined;
  const k = p.partOf(lease.lane);
  const from = p.prefix(k);
  const line = await p.redis.run('telegram.job', (c) => c.lrange(`${from}:l:${lease.lane}`, 0, -1));
  const app = appOfJob(lease.job.id);
  const sealed = p.ids.seal(to);
  const r = await p.redis.script<[] | [1, ...[string, string[]][]]>(
    'telegram_queue_mark',
    [`${from}:lanes`],
    [
      from,
      lease.lane,
      lease.token,
      lease.job.id,
      sealed,
      ...line.filter((i) => appOfJob(i) === app),
    ],
  );
  if (r.length === 0) return undefined;
  const jobs = r.slice(1) as [string, string[]][];
  return { lease, sealed, lane, from: k, to: p.partOf(lane), jobs };
}

/** Step 2: the jobs written into the new lane (lua/telegram_queue_adopt.lua). */
export async function adoptJobs(p: RedisQueueParts, m: LaneMove, now: number): Promise<Adopted> {
  const dest = p.prefix(m.to);
  const args = m.jobs.flatMap(([id, h]) => [id, h.length / 2, ...h]);
  const st = await p.redis.script<number[]>(
    'telegram_queue_adopt',
    [`${dest}:lanes`],
    [dest, m.lane, m.lease.lane, now, m.sealed, p.wake(m.to), p.retentionMs, ...args],
  );
  const ids = m.jobs.map(([id]) => id);
  return {
    moved: ids.filter((_, i) => st[i]! >= 0),
    cancelled: ids.filter((_, i) => st[i] === -1),
  };
}

/** Step 3: each moved job's id key names the new partition. */
export async function pointIds(p: RedisQueueParts, m: LaneMove, moved: string[]): Promise<void> {
  for (const id of moved)
    await p.redis.run('telegram.id', (c) => c.set(p.idKey(id), m.to, 'KEEPTTL', 'XX'));
}

/** Step 4: the jobs out of the old lane, the lease ended (lua/telegram_queue_detach.lua); false: lease lost. */
export async function detachLane(
  p: RedisQueueParts,
  m: LaneMove,
  moved: string[],
  cancelled: string[],
  now: number,
): Promise<boolean> {
  const from = p.prefix(m.from);
  const { lane, token, job } = m.lease;
  const ok = await p.redis.script<number>(
    'telegram_queue_detach',
    [`${from}:lanes`],
    [from, lane, token, job.id, now, p.retentionMs, moved.length, ...moved, ...cancelled],
  );
  return ok === 1;
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
