import type { CancelOutcome } from './outbound-queue.store.js';
import type { PartitionHints } from './redis-queue.hints.js';
import type { RedisQueueParts } from './redis-queue.parts.js';

/** Takes a queued or waiting job out of its lane (OutboundQueueStore.cancel), lua/telegram_queue_cancel.lua. */
export async function cancelJob(
  p: RedisQueueParts,
  id: string,
  now: number,
): Promise<CancelOutcome> {
  const k = await p.partitionOfJob(id);
  if (k === undefined) return 'unknown';
  const pre = p.prefix(k);
  const r = await p.redis.script<number>(
    'telegram_queue_cancel',
    [`${pre}:lanes`],
    [pre, id, now, p.retentionMs],
  );
  return r === 1 ? 'cancelled' : r === -1 ? 'sending' : r === -2 ? 'finished' : 'unknown';
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
      [pre, now, now + deadlineMs, id],
    );
    if (r.length === 0) continue;
    hints.changed(k);
    await p.redis.run('telegram.id', (c) => c.pexpire(p.idKey(id), deadlineMs + p.retentionMs));
    done.push(id);
  }
  return done;
}
