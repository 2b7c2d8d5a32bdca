import { Logger } from '@nestjs/common';
import type { BotConfig } from '../../telegram.types.js';
import { MIGRATION_TTL_MS } from '../gate/chat-migration.store.js';
import { UNREACHABLE_MS } from '../gate/send-gate.store.js';
import { appOfJob } from '../job-namespace.js';
import { chatKind } from '../outbound.types.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { CallOutcome } from './bot-call.js';
import type { LaneSettler } from './lane-settler.js';
import { type AttemptParts, botBucket } from './attempt-parts.js';

/**
 * What Telegram's answer does to the job, the bot and the chat: sent; 429 a
 * cooldown in the gate (the job waits, no attempt counted); 401 revoked; 403
 * unreachable (the job goes to another bot of its scope); 400 with
 * `migrate_to_chat_id` a moved chat (sent again to the new id); 5xx a bounded
 * retry with backoff; ambiguous by the policy. `chatId` is the id the job was
 * sent to (its own, or the one its chat moved to); `chatAfterMs` how long after
 * this send the chat's bucket takes its next: the lane's next job is due that long
 * after the answer (no earlier than the send's arrival, however late it left).
 */
export class SendOutcome {
  private readonly log = new Logger('TelegramOutbound');

  constructor(
    private readonly p: AttemptParts,
    private readonly lanes: LaneSettler,
  ) {}

  async settle(
    lease: Lease,
    bot: BotConfig,
    out: CallOutcome,
    chatAfterMs: number,
    chatId: string,
  ) {
    const { job } = lease;
    const now = this.p.clock.now();
    const labels = { bot: bot.id, method: job.method, chat_type: chatKind(chatId) };
    const error =
      'error' in out ? out.error.replaceAll(this.p.tokens.token(bot), '<token>') : undefined;
    if (out.kind === 'ok') this.p.health.success(bot.id);
    else if (out.kind === 'retryable' || out.kind === 'ambiguous') this.p.health.failure(bot.id);
    switch (out.kind) {
      case 'ok':
        this.p.metrics.sent.inc(labels);
        this.p.metrics.lag.observe(labels, (now - Math.max(job.createdAt, job.notBefore)) / 1000);
        await this.p.queue.settle(
          lease,
          { kind: 'sent', bot: bot.id, messageId: out.messageId },
          now,
          now + Math.max(0, chatAfterMs),
        );
        return;
      case 'retry_after': {
        const ms =
          out.seconds * 1000 + Math.floor(this.p.clock.random() * this.p.settings.cooldownJitterMs);
        // This worker stopped the bot's sends at once (bot-send.ts); the gate tells the other workers.
        // Telegram does not say which limit it was: the whole token waits (the chat with it). A group or
        // an edit is likely its chat's limit: the chat is cooled too, and the bot's rate is not cut.
        const chat = chatKind(chatId) === 'group' || job.method.startsWith('edit');
        const s = this.p.settings;
        const aimd = chat
          ? undefined
          : {
              cap: botBucket(bot, s).perSecond,
              backoff: s.aimdBackoff,
              recoverPerSecond: s.aimdRecoverPerSecond,
            };
        let until: number | undefined;
        try {
          until = await this.p.gate.cooldown(bot.id, undefined, ms, aimd);
        } finally {
          // Stored: a lift from now on ends it (lifts before it cannot: this 429 is newer).
          this.p.pacing.stored(bot.id, until);
        }
        if (chat) until = Math.max(until, await this.p.gate.cooldown(bot.id, chatId, ms));
        this.p.routing.invalidate(bot.id);
        this.p.metrics.rateLimited.inc(labels);
        this.p.metrics.retries.inc({ ...labels, why: 'retry_after' });
        return this.lanes.wait(lease, now + Math.max(ms, until - now), 'waiting', {
          bot: bot.id,
          error: `429 retry_after ${out.seconds}`,
        });
      }
      case 'unauthorized':
        await this.p.gate.setStatus(bot.id, { state: 'revoked', reason: error });
        this.p.routing.invalidate(bot.id);
        this.p.metrics.authFailures.inc({ bot: bot.id });
        this.p.metrics.retries.inc({ ...labels, why: 'revoked' });
        this.log.warn({
          msg: 'bot token refused (401): bot marked revoked',
          bot: bot.id,
          token: this.p.tokens.fingerprint(bot),
        });
        // Nothing was delivered: the job is routed again (another bot of its scope, or dead `revoked`).
        return this.lanes.wait(lease, now, 'queued', { bot: bot.id, error });
      case 'forbidden':
        // The 403 proves nothing landed: the job is routed again, to another bot of its scope (the mark
        // makes the gate refuse this one for the chat), or dead `forbidden` when no bot is left.
        await this.p.gate.markUnreachable(bot.id, chatId, UNREACHABLE_MS);
        this.p.metrics.retries.inc({ ...labels, why: 'forbidden' });
        return this.lanes.wait(lease, now, 'queued', { bot: bot.id, error });
      case 'migrated':
        // Moved once already (a supergroup does not migrate): Telegram is not making sense, stop.
        if (chatId !== job.chatId || out.to === chatId)
          return this.lanes.dead(lease, 'rejected', bot.id, error);
        await this.p.migrations.set(appOfJob(job.id) ?? '', job.chatId, out.to, MIGRATION_TTL_MS);
        this.p.metrics.retries.inc({ ...labels, why: 'migrated' });
        // The job and its app's jobs queued behind it go to the new id's lane, in order, ahead of later ones.
        if ((await this.p.queue.migrate(lease, out.to, now)).length > 0) return;
        return this.lanes.wait(lease, now, 'queued', { bot: bot.id, error });
      case 'rejected':
        return this.lanes.dead(lease, 'rejected', bot.id, error);
      case 'ambiguous':
      case 'retryable': {
        // Ambiguous (may have been delivered): dead unless the policy is `retry`.
        if (out.kind === 'ambiguous' && this.p.settings.ambiguous === 'dead')
          return this.lanes.dead(lease, 'ambiguous_timeout', bot.id, error);
        const attempts = job.attempts + 1;
        if (attempts >= this.p.settings.maxAttempts)
          return this.lanes.dead(lease, 'max_attempts', bot.id, error, attempts);
        this.p.metrics.retries.inc({ ...labels, why: out.kind });
        const d = Math.min(
          this.p.settings.backoffMaxMs,
          this.p.settings.backoffBaseMs * 2 ** (attempts - 1),
        );
        const backoff = d / 2 + (this.p.clock.random() * d) / 2;
        return this.lanes.wait(lease, now + backoff, 'queued', { bot: bot.id, error, attempts });
      }
    }
  }
}
