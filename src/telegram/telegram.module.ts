import { Module } from '@nestjs/common';
import { BuiltinBackends } from './builtin-backends.js';
import { ClaimReleaseInterceptor } from './claim-release.interceptor.js';
import { OutboundModule } from './outbound/outbound.module.js';
import { TelegramBotsModule } from './telegram-bots.module.js';
import { TelegramBuiltin } from './telegram-builtin.js';
import { TelegramLockFeaturesModule } from './telegram-lock-features.module.js';
import { TelegramTeller } from './telegram-teller.js';
import { TelegramController } from './telegram.controller.js';
import { TelegramMetrics } from './telegram.metrics.js';
import { WebhookInfoService } from './webhook-info.service.js';
import { PollingMetrics } from './polling/polling.metrics.js';
import { TelegramPolling } from './polling/telegram-polling.service.js';

/**
 * Telegram webhook ingress: `POST /telegram/<botId>/<path secret>` behind the
 * lock chain (policy `telegram`, or `telegram-<botId>` per bot). Bots come
 * from CONFIG_FILE `telegram.bots`; see docs/telegram.md. Outbound messages
 * (`POST /v1/notifications`, builtin replies) go through OutboundModule
 * (docs/telegram-outbound.md).
 */
@Module({
  imports: [TelegramBotsModule, TelegramLockFeaturesModule, OutboundModule],
  controllers: [TelegramController],
  providers: [
    TelegramMetrics,
    TelegramTeller,
    BuiltinBackends,
    TelegramBuiltin,
    ClaimReleaseInterceptor,
    WebhookInfoService,
    TelegramPolling,
    PollingMetrics,
  ],
  exports: [OutboundModule],
})
export class TelegramModule {}
