import { chatKind } from '../outbound.types.js';
import type { Lease } from '../queue/outbound-queue.store.js';
import type { AttemptParts } from './attempt-parts.js';
import { type CallOutcome, callBotApi } from './bot-call.js';
import { LaneSettler } from './lane-settler.js';
import { SendOutcome } from './send-outcome.js';

/**
 * One attempt at a held lane's head job: route, charge the gate, send,
 * settle. The whole retry loop stays inside the lane (the job keeps its
 * place until it is settled sent or dead), so a later job of the chat never
 * overtakes it. A 429 is a scheduling order: the cooldown goes to the gate
 * (every worker sees it) and the job waits, with no attempt counted.
 */
export class SendAttempt {
  private readonly lanes: LaneSettler;
  private readonly outcome: SendOutcome;

  constructor(private readonly p: AttemptParts) {
    this.lanes = new LaneSettler(p);
    this.outcome = new SendOutcome(p, this.lanes);
  }

  async run(lease: Lease): Promise<void> {
    const { job } = lease;
    const now = this.p.clock.now();
    if (lease.reclaimed && this.p.settings.ambiguous === 'dead')
      return this.lanes.dead(
        lease,
        'ambiguous_timeout',
        job.bot,
        'its worker stopped while sending it',
      );
    if (now > job.deadline) return this.lanes.dead(lease, 'deadline', job.bot);
    const excluded = new Set<string>();
    for (;;) {
      const bot = await this.p.routing.route(job, excluded);
      if (bot === 'disabled')
        return this.lanes.wait(lease, now + 1_000, 'waiting', {
          error: 'every bot of its scope is disabled',
        });
      if (typeof bot === 'string') return this.lanes.dead(lease, bot, job.bot);
      const methodKey = `${bot.id}|${job.method}`;
      const full = this.p.pacing.busy(bot.id) ?? this.p.pacing.busy(methodKey);
      if (full !== undefined)
        return this.lanes.wait(lease, this.p.pacing.spread(full), 'queued', { bot: bot.id });
      const c = await this.p.gate.charge({
        bot: bot.id,
        chatId: job.chatId,
        method: job.method,
        weight: this.p.settings.methodWeights[job.method] ?? 1,
        sendId: lease.token,
        inflightMs: this.p.settings.requestTimeoutMs + 1_000,
        buckets: {
          bot: (bot.buckets ?? this.p.settings.buckets).bot,
          method: (bot.buckets ?? this.p.settings.buckets).methods[job.method],
          chat: (bot.buckets ?? this.p.settings.buckets)[chatKind(job.chatId)],
        },
      });
      if (c.kind === 'refused') {
        if (c.why === 'unreachable') excluded.add(bot.id);
        else this.p.routing.invalidate(bot.id);
        continue;
      }
      if (c.kind === 'wait' && (c.bucket === 'bot' || c.bucket === 'method')) {
        const until = this.p.pacing.refused(c.bucket === 'bot' ? bot.id : methodKey, c.ms);
        return this.lanes.wait(lease, this.p.pacing.spread(until), 'queued', { bot: bot.id });
      }
      if (c.kind === 'wait') {
        const cooling = c.why === 'cooldown' || c.why === 'chat_cooldown';
        return this.lanes.wait(lease, now + c.ms, cooling ? 'waiting' : 'queued', { bot: bot.id });
      }
      let out: CallOutcome;
      try {
        const payload = { ...job.payload, chat_id: job.chatId };
        out = await callBotApi(this.p.tokens.api(bot, c.gen), job.method, payload);
      } finally {
        await this.p.gate.release(bot.id, lease.token).catch(() => undefined);
      }
      return this.outcome.settle(lease, bot, out, c.chatNextMs);
    }
  }
}
