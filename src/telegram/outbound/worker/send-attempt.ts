import { Logger } from '@nestjs/common';
import type { Clock } from '../../../common/clock.js';
import type { BotConfig } from '../../telegram.types.js';
import type { SendGateStore } from '../gate/send-gate.store.js';
import type { OutboundMetrics } from '../outbound.metrics.js';
import type { OutboundSettings } from '../outbound.settings.js';
import { type DeadReason, chatKind } from '../outbound.types.js';
import type { Lease, OutboundQueueStore, Settlement } from '../queue/outbound-queue.store.js';
import { CallOutcome, callBotApi } from './bot-call.js';
import type { BotPacing } from './bot-pacing.js';
import type { BotRouting } from './bot-routing.js';
import type { BotTokens } from './bot-tokens.js';

/** A 403 marks bot × chat unreachable for this long (a user who unblocks the bot writes to it again). */
const UNREACHABLE_MS = 30 * 24 * 3600_000;

export interface AttemptParts {
  queue: OutboundQueueStore;
  gate: SendGateStore;
  routing: BotRouting;
  pacing: BotPacing;
  tokens: BotTokens;
  settings: OutboundSettings;
  metrics: OutboundMetrics;
  clock: Clock;
}

/**
 * One attempt at a held lane's head job: route, charge the gate, send,
 * settle. The whole retry loop stays inside the lane (the job keeps its
 * place until it is settled sent or dead), so a later job of the chat never
 * overtakes it. A 429 is a scheduling order: the cooldown goes to the gate
 * (every worker sees it) and the job waits, with no attempt counted.
 */
export class SendAttempt {
  private readonly log = new Logger('TelegramOutbound');

  constructor(private readonly p: AttemptParts) {}

  async run(lease: Lease): Promise<void> {
    const { job } = lease;
    const now = this.p.clock.now();
    if (lease.reclaimed && this.p.settings.ambiguous === 'dead')
      return this.dead(lease, 'ambiguous_timeout', job.bot, 'its worker stopped while sending it');
    if (now > job.deadline) return this.dead(lease, 'deadline', job.bot);
    const excluded = new Set<string>();
    for (;;) {
      const bot = await this.p.routing.route(job, excluded);
      if (bot === 'disabled')
        return this.wait(lease, now + 1_000, 'waiting', {
          error: 'every bot of its scope is disabled',
        });
      if (typeof bot === 'string') return this.dead(lease, bot, job.bot);
      const methodKey = `${bot.id}|${job.method}`;
      const full = this.p.pacing.busy(bot.id) ?? this.p.pacing.busy(methodKey);
      if (full !== undefined)
        return this.wait(lease, this.p.pacing.spread(full), 'queued', { bot: bot.id });
      const c = await this.p.gate.charge({
        bot: bot.id,
        chatId: job.chatId,
        method: job.method,
        weight: this.p.settings.methodWeights[job.method] ?? 1,
        sendId: lease.token,
        inflightMs: this.p.settings.requestTimeoutMs + 1_000,
        buckets: {
          bot: this.p.settings.buckets.bot,
          method: this.p.settings.buckets.methods[job.method],
          chat: this.p.settings.buckets[chatKind(job.chatId)],
        },
      });
      if (c.kind === 'refused') {
        if (c.why === 'unreachable') excluded.add(bot.id);
        else this.p.routing.invalidate(bot.id);
        continue;
      }
      if (c.kind === 'wait' && (c.bucket === 'bot' || c.bucket === 'method')) {
        const until = this.p.pacing.refused(c.bucket === 'bot' ? bot.id : methodKey, c.ms);
        return this.wait(lease, this.p.pacing.spread(until), 'queued', { bot: bot.id });
      }
      if (c.kind === 'wait') {
        const cooling = c.why === 'cooldown' || c.why === 'chat_cooldown';
        return this.wait(lease, now + c.ms, cooling ? 'waiting' : 'queued', { bot: bot.id });
      }
      let out: CallOutcome;
      try {
        const payload = { ...job.payload, chat_id: job.chatId };
        out = await callBotApi(this.p.tokens.api(bot, c.gen), job.method, payload);
      } finally {
        await this.p.gate.release(bot.id, lease.token).catch(() => undefined);
      }
      return this.after(lease, bot, out, c.chatNextMs);
    }
  }

  private async after(lease: Lease, bot: BotConfig, out: CallOutcome, chatNextMs: number) {
    const { job } = lease;
    const now = this.p.clock.now();
    const labels = { bot: bot.id, method: job.method, chat_type: chatKind(job.chatId) };
    const error =
      'error' in out ? out.error.replaceAll(this.p.tokens.token(bot), '<token>') : undefined;
    switch (out.kind) {
      case 'ok':
        this.p.metrics.sent.inc(labels);
        this.p.metrics.lag.observe(labels, (now - Math.max(job.createdAt, job.notBefore)) / 1000);
        await this.p.queue.settle(
          lease,
          { kind: 'sent', bot: bot.id, messageId: out.messageId },
          now,
          now + chatNextMs,
        );
        return;
      case 'retry_after': {
        // Chat-scoped when Telegram's per-chat limits are the likely cause: a group, or an edit.
        const chat = chatKind(job.chatId) === 'group' || job.method.startsWith('edit');
        const ms =
          out.seconds * 1000 + Math.floor(this.p.clock.random() * this.p.settings.cooldownJitterMs);
        const until = await this.p.gate.cooldown(bot.id, chat ? job.chatId : undefined, ms);
        this.p.routing.invalidate(bot.id);
        this.p.metrics.rateLimited.inc(labels);
        this.p.metrics.retries.inc({ ...labels, why: 'retry_after' });
        return this.wait(lease, now + Math.max(ms, until - now), 'waiting', {
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
        return this.wait(lease, now, 'queued', { bot: bot.id, error });
      case 'forbidden':
        await this.p.gate.markUnreachable(bot.id, job.chatId, UNREACHABLE_MS);
        return this.dead(lease, 'forbidden', bot.id, error);
      case 'rejected':
        return this.dead(lease, 'rejected', bot.id, error);
      case 'ambiguous':
      case 'retryable': {
        // Ambiguous (may have been delivered): dead unless the policy is `retry`.
        if (out.kind === 'ambiguous' && this.p.settings.ambiguous === 'dead')
          return this.dead(lease, 'ambiguous_timeout', bot.id, error);
        const attempts = job.attempts + 1;
        if (attempts >= this.p.settings.maxAttempts)
          return this.dead(lease, 'max_attempts', bot.id, error, attempts);
        this.p.metrics.retries.inc({ ...labels, why: out.kind });
        const d = Math.min(
          this.p.settings.backoffMaxMs,
          this.p.settings.backoffBaseMs * 2 ** (attempts - 1),
        );
        const backoff = d / 2 + (this.p.clock.random() * d) / 2;
        return this.wait(lease, now + backoff, 'queued', { bot: bot.id, error, attempts });
      }
    }
  }

  private async wait(
    lease: Lease,
    until: number,
    state: 'queued' | 'waiting',
    o: Partial<Settlement & { kind: 'wait' }>,
  ) {
    if (until > lease.job.deadline)
      return this.dead(lease, 'deadline', o.bot ?? lease.job.bot, o.error, o.attempts);
    await this.p.queue.settle(
      lease,
      { kind: 'wait', until, state, attempts: o.attempts, bot: o.bot, error: o.error },
      this.p.clock.now(),
    );
  }

  private async dead(
    lease: Lease,
    reason: DeadReason,
    bot?: string,
    error?: string,
    attempts?: number,
  ) {
    const { job } = lease;
    this.p.metrics.dead.inc({
      bot: bot ?? 'none',
      method: job.method,
      chat_type: chatKind(job.chatId),
      reason,
    });
    await this.p.queue.settle(
      lease,
      { kind: 'dead', reason, bot, error, attempts },
      this.p.clock.now(),
    );
  }
}
