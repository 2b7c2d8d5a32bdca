import type { CancelOutcome } from './outbound-queue.store.js';
import type { PartitionHints } from './redis-queue.hints.js';
import type { RedisQueueParts } from './redis-queue.parts.js';

/** What lua/telegram_queue_cancel.lua answers: a code, or a moving job's mark and (old) lane. */
type CancelReply = number | [2, string, string];

const OUTCOME: Record<number, CancelOutcome> = {
  1: 'cancelled',
  [-1]: 'sending',
  [-2]: 'finished',
};

function cancelStep(
  p: RedisQueueParts,
  k: number,
  id: string,
  now: number,
  step: '' | 'dest' | 'source' = '',
  lane = '',
): Promise<CancelReply> {
  const pre = p.prefix(k);
  return p.redis.script<CancelReply>(
    'telegram_queue_cancel',
    [`${pre}:lanes`],
    [pre, id, now, p.retentionMs, step, lane],
  );
}

/**
 * Takes a queued or waiting job out of its lane (OutboundQueueStore.cancel), lua/telegram_queue_cancel.lua in
 * the partition its id key names. A job whose lane is moving (redis-lane-move.ts) is in the old lane and maybe
 * already in the new one: it is cancelled in the new lane's partition first (the copy taken in, or a cancel
 * mark that the move's adopt honours), then in the old lane. A job the move took out of the partition just
 * read (its id key repointed since) is looked for where its id key names now.
 */
export async function cancelJob(
  p: RedisQueueParts,
  id: string,
  now: number,
): Promise<CancelOutcome> {
  let k = await p.partitionOfJob(id);
  for (let tries = 0; k !== undefined && tries < 3; tries++) {
    const r = await cancelStep(p, k, id, now);
    if (Array.isArray(r)) {
      const [, mark, old] = r;
      const lane = `${old.slice(0, old.lastIndexOf('|'))}|${p.ids.pseudonym(p.ids.open(mark))}`;
      const there = await cancelStep(p, p.partOf(lane), id, now, 'dest', lane);
      if (there === 1) await cancelStep(p, k, id, now, 'source', old);
      return OUTCOME[there as number] ?? 'unknown';
    }
    if (r !== 0) return OUTCOME[r] ?? 'unknown';
    const again = await p.partitionOfJob(id);
    if (again === k) return 'unknown';
    k = again;
  }
  return 'unknown';
}

/** Queues dead jobs again at the end of their lanes (OutboundQueueStore.replay); the ids replayed. */
export async function replayJobs(
  p: RedisQueueParts,
  hints: PartitionHints,
  ids: string[],
  now: number,
  deadlineMs: number,
): Promise<string[]> {
  const done: string[] = [];
  for (const id of ids) {
    const k = await p.partitionOfJob(id);
    if (k === undefined) continue;
    const pre = p.prefix(k);
    const r = await p.redis.script<string[]>(
      'telegram_queue_replay',
      [`${pre}:lanes`],
      [pre, now, now + deadlineMs, p.wake(k), id],
    );
    if (r.length === 0) continue;
    hints.changed(k);
    await p.redis.run('telegram.id', (c) => c.pexpire(p.idKey(id), deadlineMs + p.retentionMs));
    done.push(id);
  }
  return done;
}
