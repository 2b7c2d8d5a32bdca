import { MemoryStoreFullError } from '../../common/bounded-map.js';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CLOCK, type Clock } from '../../common/clock.js';
import { ProblemException } from '../../common/problem.exception.js';
import { RedisUnavailableError } from '../../redis/redis.errors.js';
import { TelegramBots } from '../telegram-bots.js';
import { validateJobs } from './job-validate.js';
import { OutboundMetrics } from './outbound.metrics.js';
import { type Job, type NewJob, chatKind } from './outbound.types.js';
import { OutboundWorkers } from './outbound-workers.service.js';
import { appOfJob, clientJobId, ownId } from './job-namespace.js';
import { OUTBOUND_QUEUE_STORE, type OutboundQueueStore } from './queue/outbound-queue.store.js';
import {
  CHAT_MIGRATION_STORE,
  type ChatMigrationStore,
  movedJobs,
} from './gate/chat-migration.store.js';

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

function unavailable(
  detail = 'Redis is unreachable; nothing was queued. Try again.',
): ProblemException {
  return new ProblemException(
    503,
    'notifications_unavailable',
    'The notification queue is unavailable',
    {
      detail,
      headers: { 'Retry-After': '1' },
    },
  );
}

/** Accepts notification jobs (validated, all or none) and reports their state. */
@Injectable()
export class OutboundService {
  constructor(
    @Inject(OUTBOUND_QUEUE_STORE) private readonly queue: OutboundQueueStore,
    private readonly bots: TelegramBots,
    private readonly workers: OutboundWorkers,
    private readonly metrics: OutboundMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CHAT_MIGRATION_STORE) private readonly migrations: ChatMigrationStore,
  ) {}

  /** Queues `body`'s jobs for `app` (the request's signed app): ids and collapse keys in its namespace. */
  async submit(
    body: unknown,
    app: string | undefined,
  ): Promise<{ jobs: { job_id: string; status: string }[] }> {
    const s = this.bots.settings.outbound;
    const now = this.clock.now();
    const { jobs, problems } = validateJobs(body, {
      scopes: this.scopesOf(app),
      now,
      defaultDeadlineMs: s.defaultDeadlineMs,
      maxDeadlineMs: s.retentionMs,
    });
    if (problems.length > 0)
      throw new ProblemException(400, 'invalid_notifications', 'Invalid notification jobs', {
        detail: `${problems.length} problem(s); nothing was queued`,
        problems,
      });
    const owned = jobs.map((j) => ({
      ...j,
      id: ownId(app, j.id),
      collapseKey: j.collapseKey === undefined ? undefined : ownId(app, j.collapseKey),
    }));
    const outcomes = await this.enqueue(owned, now);
    return { jobs: jobs.map((j, i) => ({ job_id: j.id, status: outcomes[i]! })) };
  }

  /** A job of `app` as that app named it; another app's job is unknown here. */
  async status(id: string, app: string | undefined): Promise<JobView | undefined> {
    try {
      const j = await this.queue.get(ownId(app, id));
      if (!j) return undefined;
      const { ref: _ref, ...view } = jobView(j);
      return view;
    } catch (e) {
      if (e instanceof RedisUnavailableError) throw unavailable();
      throw e;
    }
  }

  /**
   * Cancels a job of `app` that has not left: `cancelled`; a ProblemException 409 when it is being
   * sent or already finished; undefined when the app has no such job (another app's is unknown here).
   */
  async cancel(
    id: string,
    app: string | undefined,
  ): Promise<{ job_id: string; status: string } | undefined> {
    let out;
    try {
      out = await this.queue.cancel(ownId(app, id), this.clock.now());
    } catch (e) {
      if (e instanceof RedisUnavailableError) throw unavailable();
      throw e;
    }
    if (out === 'unknown') return undefined;
    if (out === 'cancelled') return { job_id: id, status: 'cancelled' };
    const view = await this.status(id, app);
    throw new ProblemException(409, 'job_not_cancellable', 'The job cannot be cancelled', {
      detail:
        out === 'sending'
          ? 'it is being sent (it may already have reached Telegram)'
          : `it is already ${view?.state ?? 'finished'}`,
      state: view?.state,
    });
  }

  /** The scopes `app` may send through: those whose every bot lets it (a bot without `apps` lets every app). */
  private scopesOf(app: string | undefined): Set<string> {
    const denied = new Set<string>();
    for (const b of this.bots.all())
      if (b.apps !== undefined && (app === undefined || !b.apps.includes(app))) denied.add(b.scope);
    return new Set(
      this.bots
        .all()
        .map((b) => b.scope)
        .filter((sc) => !denied.has(sc)),
    );
  }

  /** A reply of a builtin bot: through the sender, by that bot only, as the chat's next message. */
  async reply(
    botId: string,
    chatId: number | string,
    method: string,
    payload: Record<string, unknown>,
  ): Promise<string> {
    const now = this.clock.now();
    const id = `builtin:${botId}:${randomUUID()}`;
    const s = this.bots.settings.outbound;
    const job: NewJob = {
      id,
      chatId: String(chatId),
      method,
      payload,
      scope: this.bots.get(botId)?.scope ?? 'default',
      pinnedBot: botId,
      priority: 'high',
      // A reply is worth little late: a minute, not the default day.
      deadline: now + Math.min(60_000, s.defaultDeadlineMs),
      notBefore: now,
    };
    await this.enqueue([job], now);
    return id;
  }

  private async enqueue(posted: NewJob[], now: number): Promise<string[]> {
    try {
      // A job for a chat that moved joins the new id's lane (chat-migration.store.ts).
      const jobs = await movedJobs(this.migrations, (id) => appOfJob(id) ?? '', posted);
      const out = await this.queue.enqueue(jobs, now);
      out.forEach((o, i) => {
        if (o === 'replaced')
          this.metrics.collapsed.inc({
            method: jobs[i]!.method,
            chat_type: chatKind(jobs[i]!.chatId),
          });
      });
      this.workers.wake();
      return out;
    } catch (e) {
      if (e instanceof RedisUnavailableError) throw unavailable();
      if (e instanceof MemoryStoreFullError)
        throw unavailable(`the in-memory queue holds ${e.maxEntries} jobs; nothing was queued`);
      throw e;
    }
  }
}
