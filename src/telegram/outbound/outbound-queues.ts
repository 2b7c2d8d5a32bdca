import type { QueueBacklog } from './queue/outbound-queue.store.js';

/** Lanes read per queue partition at most for one answer (the answer says when more exist). */
export const BACKLOG_MAX_LANES = 10_000;

/** One queue as the admin API shows it: counts and ages only, never a chat. */
export interface QueueView {
  /** The scope's name, or `bot:<id>` for the jobs pinned to one bot (its built-in replies). */
  queue: string;
  kind: 'scope' | 'bot';
  /** The bots that send its jobs. */
  bots: string[];
  /** Jobs queued, waiting or being sent. */
  jobs: number;
  /** Chats with jobs waiting. */
  lanes: number;
  /** Milliseconds the oldest waiting job has been due (0 when none waits). */
  lag_ms: number;
}

/** A bot's share of the backlog: its scope's queue and its pinned queue. */
export interface BotQueue {
  queue_jobs: number;
  queue_lag_ms: number;
}

/** Every scope's queue (empty ones too) and every pinned queue with jobs, from the store's backlog. */
export function queueViews(
  bots: readonly { id: string; scope: string }[],
  backlog: readonly QueueBacklog[],
  now: number,
): QueueView[] {
  const by = new Map(backlog.map((b) => [b.queue, b]));
  const lag = (b?: QueueBacklog) => (b && b.jobs > 0 ? Math.max(0, now - b.oldestDueAt) : 0);
  const scopes = [...new Set(bots.map((b) => b.scope))].sort();
  const views: QueueView[] = scopes.map((scope) => {
    const b = by.get(scope);
    const ids = bots.filter((x) => x.scope === scope).map((x) => x.id);
    return {
      queue: scope,
      kind: 'scope',
      bots: ids,
      jobs: b?.jobs ?? 0,
      lanes: b?.lanes ?? 0,
      lag_ms: lag(b),
    };
  });
  for (const bot of bots) {
    const b = by.get(`bot=${bot.id}`);
    if (b && b.jobs > 0)
      views.push({
        queue: `bot:${bot.id}`,
        kind: 'bot',
        bots: [bot.id],
        jobs: b.jobs,
        lanes: b.lanes,
        lag_ms: lag(b),
      });
  }
  return views;
}

/** The queues a bot sends from, summed: jobs added, the longest lag. */
export function botQueue(id: string, views: readonly QueueView[]): BotQueue {
  const mine = views.filter((v) => v.bots.includes(id));
  return {
    queue_jobs: mine.reduce((s, v) => s + v.jobs, 0),
    queue_lag_ms: Math.max(0, ...mine.map((v) => v.lag_ms)),
  };
}
