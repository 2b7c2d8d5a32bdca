import { type NewJob, laneOf } from '../outbound.types.js';
import type { EnqueueOutcome } from './outbound-queue.store.js';
import type { PartitionHints } from './redis-queue.hints.js';
import type { RedisQueueParts } from './redis-queue.parts.js';
import { jobArgs } from './redis-job-codec.js';

/** Queues the jobs in order (OutboundQueueStore.enqueue): the id claimed, then lua/telegram_queue_enqueue.lua. */
export async function enqueueJobs(
  p: RedisQueueParts,
  hints: PartitionHints,
  jobs: NewJob[],
  now: number,
): Promise<EnqueueOutcome[]> {
  const out: EnqueueOutcome[] = [];
  // One job at a time, in order: a batch's jobs may share a lane, and ids must be claimed before queuing.
  for (const j of jobs) {
    // The lane names the chat by its pseudonym: lane keys, the lanes hash and leases carry no raw id.
    const lane = laneOf({ ...j, chatId: p.ids.pseudonym(j.chatId) });
    let k = p.partOf(lane);
    const ttl = Math.max(1, j.deadline - now) + p.retentionMs;
    const set = await p.redis.run('telegram.id', (c) => c.set(p.idKey(j.id), k, 'PX', ttl, 'NX'));
    if (set === null) {
      // Known id: its partition decides (a crash between the two steps left the job to be queued there).
      k = (await p.partitionOfJob(j.id)) ?? k;
    }
    const pre = p.prefix(k);
    const r = await p.redis.script<number[]>(
      'telegram_queue_enqueue',
      [`${pre}:lanes`],
      [pre, now, p.retentionMs, p.wake(k), ...jobArgs(j, lane, p.ids)],
    );
    out.push(r[0] === 2 ? 'replaced' : r[0] === 1 ? 'queued' : 'duplicate');
    hints.changed(k, j.priority === 'high');
  }
  return out;
}
