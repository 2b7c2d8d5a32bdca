import { appOfJob, clientJobId } from './job-namespace.js';
import type { Job } from './outbound.types.js';

/** What `GET /v1/notifications/:job_id` shows of a job. */
export interface JobView {
  /** The id the app gave. */
  job_id: string;
  /** The app that queued it (absent: an internal job, e.g. a builtin bot's reply). */
  app?: string;
  /** The queue's id of the job, `<app>/<job_id>` (admin views only: what a replay names). */
  ref?: string;
  state: Job['state'];
  attempts: number;
  chat_id: string;
  method: string;
  bot_scope: string;
  priority: Job['priority'];
  bot?: string;
  message_id?: number;
  reason?: Job['reason'];
  last_error?: string;
  wait_until?: string;
  collapsed_by?: string;
  created_at: string;
  finished_at?: string;
  deadline: string;
}

const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

export function jobView(j: Job): JobView {
  return {
    job_id: clientJobId(j.id),
    app: appOfJob(j.id),
    ref: j.id,
    state: j.state,
    attempts: j.attempts,
    chat_id: j.chatId,
    method: j.method,
    bot_scope: j.pinnedBot ? `bot:${j.pinnedBot}` : j.scope,
    priority: j.priority,
    bot: j.bot,
    message_id: j.messageId,
    reason: j.reason,
    last_error: j.lastError,
    wait_until: j.state === 'waiting' || j.state === 'queued' ? iso(j.waitUntil) : undefined,
    collapsed_by: j.collapsedBy && clientJobId(j.collapsedBy),
    created_at: iso(j.createdAt)!,
    finished_at: iso(j.finishedAt),
    deadline: iso(j.deadline)!,
  };
}
