import type { Job } from '../outbound.types.js';
import type { QueueBacklog } from './outbound-queue.store.js';
import { addBacklog } from './queue-backlog.js';
import type { RedisQueueParts } from './redis-queue.parts.js';
import { decodeJob } from './redis-job-codec.js';

/** A job by id (OutboundQueueStore.get): its id key names its partition. */
export async function getJob(p: RedisQueueParts, id: string): Promise<Job | undefined> {
  const k = await p.partitionOfJob(id);
  if (k === undefined) return undefined;
  const h = await p.redis.run('telegram.job', (c) => c.hgetall(`${p.prefix(k)}:j:${id}`));
  return decodeJob(h, p.ids);
}

/** Dead-lettered jobs, newest first (OutboundQueueStore.dead): `limit` per partition, merged. */
export async function deadJobs(p: RedisQueueParts, limit: number): Promise<Job[]> {
  const all: { at: number; job: Job }[] = [];
  for (let k = 0; k < p.partitions; k++) {
    const pre = p.prefix(k);
    const ids = await p.redis.run('telegram.dead', (c) =>
      c.zrevrange(`${pre}:dead`, 0, limit - 1, 'WITHSCORES'),
    );
    for (let i = 0; i + 1 < ids.length; i += 2) {
      const h = await p.redis.run('telegram.job', (c) => c.hgetall(`${pre}:j:${ids[i]}`));
      const job = decodeJob(h, p.ids);
      if (job) all.push({ at: Number(ids[i + 1]), job });
    }
  }
  return all
    .sort((a, b) => b.at - a.at)
    .slice(0, limit)
    .map((x) => x.job);
}

/** Jobs in lanes (OutboundQueueStore.depth): each partition's counter. */
export async function laneDepth(p: RedisQueueParts): Promise<number> {
  let n = 0;
  for (let k = 0; k < p.partitions; k++) {
    const v = await p.redis.run('telegram.depth', (c) => c.get(`${p.prefix(k)}:count`));
    n += Number(v ?? 0);
  }
  return n;
}

/** Backlog per queue (OutboundQueueStore.backlog), lua/telegram_queue_backlog.lua per partition. */
export async function laneBacklog(
  p: RedisQueueParts,
  maxLanes: number,
): Promise<{ queues: QueueBacklog[]; truncated: boolean }> {
  const by = new Map<string, QueueBacklog>();
  let truncated = false;
  for (let k = 0; k < p.partitions; k++) {
    const pre = p.prefix(k);
    const [cut, ...rows] = await p.redis.script<[number, ...[string, number, number, number][]]>(
      'telegram_queue_backlog',
      [`${pre}:lanes`],
      [pre, maxLanes],
    );
    truncated ||= cut === 1;
    for (const [queue, jobs, lanes, due] of rows)
      addBacklog(by, { queue, jobs, lanes, oldestDueAt: due });
  }
  return { queues: [...by.values()], truncated };
}
