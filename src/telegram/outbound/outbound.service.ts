import { MemoryStoreFullError } from '../../common/bounded-map.js';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RedisUnavailableError } from '../../redis/redis.errors.js';
import { TelegramBots } from '../telegram-bots.js';
import { validateJobs } from './job-validate.js';
import { OutboundMetrics } from './outbound.metrics.js';
import { type NewJob, chatKind } from './outbound.types.js';
import { OutboundWorkers } from './outbound-workers.service.js';
import { appOfJob, ownId } from './job-namespace.js';
import { type JobView, jobView } from './job-view.js';
import { invalidNotifications, notCancellable, unavailable } from './outbound.problems.js';
import { scopesOf } from './app-scopes.js';
import { OUTBOUND_QUEUE_STORE, type OutboundQueueStore } from './queue/outbound-queue.store.js';
import {
  CHAT_MIGRATION_STORE,
  type ChatMigrationStore,
  movedJobs,
} from './gate/chat-migration.store.js';

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
      scopes: scopesOf(this.bots, app),
      now,
      defaultDeadlineMs: s.defaultDeadlineMs,
      maxDeadlineMs: s.retentionMs,
    });
    if (problems.length > 0) throw invalidNotifications(problems);
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
    throw notCancellable(
      out === 'sending'
        ? 'it is being sent (it may already have reached Telegram)'
        : `it is already ${view?.state ?? 'finished'}`,
      view?.state,
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
