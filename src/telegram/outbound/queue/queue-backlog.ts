import type { QueueBacklog } from './outbound-queue.store.js';

/** Adds one partition's (or lane's) backlog of a queue to the sums. */
export function addBacklog(by: Map<string, QueueBacklog>, b: QueueBacklog): void {
  const had = by.get(b.queue);
  if (!had) by.set(b.queue, { ...b });
  else {
    had.jobs += b.jobs;
    had.lanes += b.lanes;
    had.oldestDueAt = Math.min(had.oldestDueAt, b.oldestDueAt);
  }
}
