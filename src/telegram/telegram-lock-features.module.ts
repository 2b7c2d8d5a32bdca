import { Inject, Module } from '@nestjs/common';
import { RateLimitExtensionsModule } from '../locks/rate-limit/extensions/rate-limit-extensions.module.js';
import { RateLimitExtensions } from '../locks/rate-limit/extensions/rate-limit-extensions.js';
import {
  SecretTokenSources,
  SecretTokenSourcesModule,
} from '../locks/signature/secret-token/secret-tokens.js';
import { TelegramBots } from './telegram-bots.js';
import { telegramRateLimitFeature, telegramSignatureFeature } from './telegram-lock-features.js';
import { TelegramBotsModule } from './telegram-bots.module.js';
import { GroupSizes } from './group-sizes.js';
import { groupSizesProvider } from './group-sizes.provider.js';

/**
 * Plugs the Telegram product into locks 1 and 2 (like `forFeature`, but built
 * from the configured bots, which DI provides). Registered when the module is
 * created, before the chain validates the slices at bootstrap.
 */
@Module({
  imports: [TelegramBotsModule, RateLimitExtensionsModule, SecretTokenSourcesModule],
  providers: [groupSizesProvider],
})
export class TelegramLockFeaturesModule {
  constructor(
    @Inject(TelegramBots) bots: TelegramBots,
    rateLimit: RateLimitExtensions,
    secretTokens: SecretTokenSources,
    @Inject(GroupSizes) sizes: GroupSizes,
  ) {
    rateLimit.register(telegramRateLimitFeature(bots, sizes));
    secretTokens.register(telegramSignatureFeature(bots));
  }
}
