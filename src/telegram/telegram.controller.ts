import { Controller, HttpCode, Inject, Post, Req, UseInterceptors } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { findRiskSink, type RiskSink } from '../locks/rate-limit/extensions/risk-sink.js';
import type { ClassifiedUpdate } from './telegram-update.js';
import { ApiExcludeController } from '@nestjs/swagger';
import { Protect } from '../chain/protect.decorator.js';
import { ProblemException } from '../common/problem.exception.js';
import { type AnyRequest, requestState } from '../http/http-context.js';
import { ClaimReleaseInterceptor } from './claim-release.interceptor.js';
import { ChatReach } from './outbound/chat-reach.js';
import { BackendUnavailableError, forwardUpdate } from './telegram-forward.js';
import { TelegramBots } from './telegram-bots.js';
import { TelegramBuiltin } from './telegram-builtin.js';
import { TelegramMetrics } from './telegram.metrics.js';
import { TELEGRAM_SETTINGS } from './telegram.settings.js';
import type { TelegramSettings } from './telegram.types.js';
import { TelegramTeller } from './telegram-teller.js';

/**
 * `POST /telegram/<botId>/<path secret>`: Telegram's webhook. Lock 1 checks
 * the secret token and the path, lock 2 limits; what reaches the handler is
 * verified. It always answers 2xx fast — except in forward mode while the
 * bot's backend cannot take the update (then non-2xx, so Telegram redelivers).
 */
@ApiExcludeController()
@Controller('telegram')
export class TelegramController {
  constructor(
    private readonly bots: TelegramBots,
    private readonly metrics: TelegramMetrics,
    private readonly builtin: TelegramBuiltin,
    private readonly teller: TelegramTeller,
    @Inject(TELEGRAM_SETTINGS) private readonly settings: TelegramSettings,
    private readonly moduleRef: ModuleRef,
    private readonly reach: ChatReach,
  ) {}

  /** The rate-limit lock's risk sink, found once (undefined: lock not installed or scores off). */
  private sink: RiskSink | null | undefined = null;

  @Post(':botId/:pathSecret')
  @HttpCode(200)
  @Protect('telegram', { variantParam: 'botId' })
  // Below @Protect on purpose: applied first, so it wraps the chain's interceptors.
  @UseInterceptors(ClaimReleaseInterceptor)
  async update(@Req() req: AnyRequest): Promise<unknown> {
    const bot = this.bots.bot(req);
    // Reached only with lock 1 off: the path must still name a bot.
    if (!bot) throw ProblemException.fast(401, 'bad_secret_token', 'Unknown bot or path');
    const u = this.bots.update(req);
    if (!u) {
      this.metrics.update(bot.id, undefined, 'malformed');
      return {};
    }
    const state = requestState(req);
    if (state.duplicate) {
      this.metrics.update(bot.id, u, 'deduplicated');
      return {};
    }
    this.observe(req, u);
    // The bot back in a chat (or gone from it), learnt even from a limited user: its 403 mark follows.
    await this.reach.learn(bot.id, u);
    if (state.limited) {
      this.metrics.update(bot.id, u, 'limited');
      if (state.limited.notify) this.teller.tell(bot, u, state.limited.retryAfterMs);
      return {};
    }
    if (u.kind === 'unknown') {
      this.metrics.update(bot.id, u, 'handled');
      if (bot.mode === 'builtin') return {};
    }
    if (bot.mode === 'builtin') {
      this.builtin.handle(bot, u);
      this.metrics.update(bot.id, u, 'handled');
      return {};
    }
    try {
      const relay = await forwardUpdate(req, bot, u, {
        timeoutMs: this.settings.forwardTimeoutMs,
        signal: state.signal,
        decision: state.degraded ? 'allowed;degraded' : 'allowed',
      });
      this.metrics.update(bot.id, u, 'forwarded');
      return relay ?? {};
    } catch (err) {
      if (!(err instanceof BackendUnavailableError)) throw err;
      this.metrics.update(bot.id, u, 'backend_unavailable');
      // Non-2xx: Telegram keeps the update and redelivers it (docs/telegram.md#no-loss).
      throw ProblemException.fast(
        502,
        'bot_backend_unavailable',
        'The bot backend did not take the update',
        {
          detail: err.message,
        },
      );
    }
  }

  /** Risk signals of a verified update (docs/quotas.md#signals): the chats a user writes in, repeated /ask texts. */
  private observe(req: AnyRequest, u: ClassifiedUpdate): void {
    if (this.sink === null) this.sink = findRiskSink(this.moduleRef);
    if (!this.sink || u.userId === undefined) return;
    const ctx = { req, state: requestState(req), route: '' };
    if (u.chatId !== undefined) this.sink.chat(ctx, u.chatId);
    if (u.action === '/ask' && u.args !== '') this.sink.payload(ctx, u.args);
  }
}
