import { currentChat } from '../gate/chat-migration.store.js';
import { appOfJob } from '../job-namespace.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';
import type { LaneSettler } from './lane-settler.js';
import { neverLeft } from './lost-sends.js';

/**
 * What an attempt settles before it routes the held head job: a reclaimed job that may have left (the
 * `ambiguous` policy), a job past its deadline, a lane whose chat moved. The chat id to send to, or
 * undefined when the lease was settled (dead, or its lane moved) here.
 */
export async function checkLease(
  p: AttemptParts,
  lanes: LaneSettler,
  lease: Lease,
  now: number,
): Promise<string | undefined> {
  const { job } = lease;
  // A dead worker's job whose send provably never left is sent normally; one that may have left is ambiguous.
  if (lease.reclaimed && p.settings.ambiguous === 'dead' && !(await neverLeft(p, lease))) {
    await lanes.dead(lease, 'ambiguous_timeout', job.bot, 'its worker stopped while sending it');
    return undefined;
  }
  if (now > job.deadline) {
    await lanes.dead(lease, 'deadline', job.bot);
    return undefined;
  }
  // A group that became a supergroup: the lane is moved to the new id's lane (a move a dead worker left
  // half done, or a job queued to the old lane meanwhile), else sent to the new id where it is.
  const chatId = await currentChat(p.migrations, appOfJob(job.id) ?? '', job.chatId);
  const to = lease.movedTo ?? (chatId !== job.chatId ? chatId : undefined);
  if (to !== undefined && (await p.queue.migrate(lease, to, now)).length > 0) return undefined;
  return chatId;
}
