import type { Lease, Settlement } from './outbound-queue.store.js';
import type { PartitionHints } from './redis-queue.hints.js';
import type { RedisQueueParts } from './redis-queue.parts.js';

/** Lanes a wake (a cooldown lifted early) looks at per partition and priority, at most. */
const WAKE_MAX_LANES = 10_000;

/** Settles a held head job (OutboundQueueStore.settle), lua/telegram_queue_settle.lua. */
export async function settleLease(
  p: RedisQueueParts,
  hints: PartitionHints,
  lease: Lease,
  s: Settlement,
  now: number,
  nextAt: number,
): Promise<boolean> {
  const k = p.partOf(lease.lane);
  const pre = p.prefix(k);
  // A settle ends the job's lost leases (its reclaim decided on them).
  const f: (string | number)[] = lease.lost.length > 0 ? ['lost', ''] : [];
  if (s.kind === 'wait') f.push('state', s.state, 'wait', s.until);
  else f.push('state', s.kind, 'finished', now, 'wait', '');
  if (s.kind === 'sent' && s.messageId !== undefined) f.push('mid', s.messageId);
  if (s.kind === 'dead') f.push('reason', s.reason);
  if (s.kind !== 'sent') f.push('err', s.error ?? '');
  if (s.bot !== undefined) f.push('bot', s.bot);
  if (s.kind !== 'sent' && s.attempts !== undefined) f.push('attempts', s.attempts);
  const at =
    s.kind !== 'wait' ? nextAt : s.keepPlace ? Math.min(s.until, lease.place ?? s.until) : s.until;
  hints.due(k, at);
  const r = await p.redis.script<number>(
    'telegram_queue_settle',
    [`${pre}:lanes`],
    [pre, lease.lane, lease.token, lease.job.id, now, s.kind, p.retentionMs, Math.ceil(at), ...f],
  );
  return r === 1;
}

/** Makes due now the unheld lanes whose head waits for `bot` (OutboundQueueStore.wake); how many. */
export async function wakeLanes(
  p: RedisQueueParts,
  hints: PartitionHints,
  bot: string,
  now: number,
): Promise<number> {
  let woken = 0;
  hints.forget();
  for (let k = 0; k < p.partitions; k++) {
    const pre = p.prefix(k);
    const n = await p.redis.script<number>(
      'telegram_queue_wake',
      [`${pre}:lanes`],
      [pre, bot, now, WAKE_MAX_LANES],
    );
    // A claim of this instance that ran meanwhile noted the partition's lanes as due at the old end.
    if (n > 0) hints.forget(k);
    woken += n;
  }
  return woken;
}
